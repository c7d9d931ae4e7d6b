/** Standalone endpoints (IAM spec) and DESIGN additions. */
import { defineRoutes, noBody } from './define'

export const SERVICE_ROUTES = defineRoutes({
  operationalConfig: {
    method: 'GET',
    path: '/operational/config',
    summary: 'The operational configuration the gateway needs',
    auth: 'none',
    limiters: [],
    request: noBody,
    responses: {},
  },
  health: {
    method: 'GET',
    path: '/health',
    summary: 'Liveness (HMAC-exempt from loopback)',
    auth: 'none',
    limiters: [],
    request: noBody,
    responses: {},
  },
  check: {
    method: 'GET',
    path: '/check',
    summary: 'Device check: sets the canary_id cookie',
    auth: 'none',
    limiters: ['check'],
    request: noBody,
    responses: {},
  },
  jwks: {
    method: 'GET',
    path: '/.well-known/jwks.json',
    summary: 'The public keys access tokens are signed with',
    auth: 'none',
    limiters: [],
    request: noBody,
    responses: {},
  },
})
