/** The service's own endpoints (health, readiness, metrics, OpenAPI, operational config, /check, keys). */
import { z } from 'zod'
import { defineRoutes, noBody } from './define'
import { errorCode } from './error-codes'
import { failure, LIMITED, plainError, responses } from './responses'

const checkBody = (success: boolean) =>
  z.object({
    results: z.object({ success: z.literal(success), banned: z.literal(!success), time: z.string(), ipAddress: z.string() }),
    message: z.string(),
    ...(success ? {} : { code: errorCode }),
  })

const readinessBody = (status: 'ready' | 'unavailable', state: z.ZodType) =>
  z.object({
    status: z.literal(status),
    checks: z.object({ database: state, storage: state, mail: z.union([state, z.literal('outbox')]) }),
  })

export const SERVICE_ROUTES = defineRoutes({
  operationalConfig: {
    method: 'GET',
    path: '/operational/config',
    summary: 'The operational configuration the gateway needs',
    auth: 'none',
    limiters: [],
    request: noBody,
    responses: {
      200: { description: 'Cookie domain and access token TTL', body: z.object({ domain: z.string(), accessTokenTTL: z.number().int().positive() }) },
      403: failure('Not the trusted client', plainError, 'forbidden'),
    },
  },
  health: {
    method: 'GET',
    path: '/health',
    summary: 'Liveness (HMAC-exempt from loopback)',
    auth: 'none',
    limiters: [],
    request: noBody,
    responses: { 200: { description: 'Text `OK`' } },
  },
  healthReady: {
    method: 'GET',
    path: '/health/ready',
    summary: 'Readiness: database, shared storage and mail reachable (HMAC-exempt: up or down only)',
    auth: 'none',
    limiters: [],
    request: noBody,
    hmac: false,
    responses: {
      200: { description: 'Every dependency answers', body: readinessBody('ready', z.enum(['up'])) },
      503: failure(
        'A dependency is down (each check gives up after 1 s); Retry-After set',
        readinessBody('unavailable', z.enum(['up', 'down'])).extend({ code: errorCode }),
        'service_unavailable',
      ),
    },
  },
  check: {
    method: 'GET',
    path: '/check',
    summary: 'Device check: sets the canary_id cookie',
    auth: 'none',
    limiters: ['check'],
    request: noBody,
    responses: responses(
      { 200: { description: 'Device recorded; canary_id cookie set when absent', body: checkBody(true) } },
      { 403: failure('This device is banned', checkBody(false), 'device_banned') },
      LIMITED,
    ),
  },
  metrics: {
    method: 'GET',
    path: '/metrics',
    summary: 'Prometheus metrics (from service.metrics.allow or with the metrics bearer secret)',
    auth: 'none',
    limiters: [],
    request: noBody,
    hmac: false,
    responses: {
      200: { description: 'Prometheus text exposition format (text/plain; version=0.0.4)' },
      403: failure('Neither an allowed address nor the metrics token', plainError, 'forbidden'),
    },
  },
  jwks: {
    method: 'GET',
    path: '/.well-known/jwks.json',
    summary: 'The public keys access tokens are signed with',
    auth: 'none',
    limiters: [],
    request: noBody,
    responses: {
      200: { description: 'The JWK set (Cache-Control: max-age=60)', body: z.object({ keys: z.array(z.record(z.string(), z.unknown())) }) },
    },
  },
  openapi: {
    method: 'GET',
    path: '/openapi.json',
    summary: 'This document: the OpenAPI 3.1 description of every IAM route',
    auth: 'none',
    limiters: [],
    request: noBody,
    hmac: false,
    responses: { 200: { description: 'The OpenAPI 3.1 document' } },
  },
})
