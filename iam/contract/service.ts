/** Standalone endpoints (IAM spec) and DESIGN additions. */
import { z } from 'zod'
import { defineRoutes, noBody } from './define'
import { LIMITED, plainError, responses } from './responses'

const checkBody = (success: boolean) =>
  z.object({
    results: z.object({ success: z.literal(success), banned: z.literal(!success), time: z.string(), ipAddress: z.string() }),
    message: z.string(),
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
      403: { description: 'Not the trusted client', body: plainError },
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
  check: {
    method: 'GET',
    path: '/check',
    summary: 'Device check: sets the canary_id cookie',
    auth: 'none',
    limiters: ['check'],
    request: noBody,
    responses: responses(
      { 200: { description: 'Device recorded; canary_id cookie set when absent', body: checkBody(true) } },
      { 403: { description: 'This device is banned', body: checkBody(false) } },
      LIMITED,
    ),
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
