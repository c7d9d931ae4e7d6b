#!/usr/bin/env node
/**
 * An API that accepts the identity platform's access tokens: plain Node, no build step, the
 * platform's verifier as its only helper. GET /orders needs a valid access token with the scope
 * orders:read; the answer names the token's subject. A request without a token gets 401, a bad
 * token 401 with error="invalid_token", a token without the scope 403 with
 * error="insufficient_scope" (RFC 6750 section 3), each with a WWW-Authenticate header and a JSON
 * body; when the issuer's keys cannot be fetched, 503 with Retry-After.
 *
 * Run (from the repository root, with `npm start` running):
 *
 *   node examples/api/server.mjs
 *
 * Settings (environment), each defaulting to what `npm start` configures: ISSUER (default
 * http://localhost:3000/oidc), AUDIENCE (this API's resource indicator, one of the provider's
 * `oidc.resourceServers`; default http://localhost:4100/), JWKS_URI (default: the issuer metadata's
 * jwks_uri), PORT (4100; 0 picks a free one), INTROSPECTION_CLIENT_ID and
 * INTROSPECTION_CLIENT_SECRET (optional: this API's own client; with them every token is also
 * checked at the introspection endpoint, and opaque tokens are accepted); SESSION_ISSUER (default
 * http://127.0.0.1:3001, the IAM's token issuer; `off` takes no session token), SESSION_AUDIENCE
 * (default AUDIENCE), SESSION_JWKS_URI (default http://localhost:3000/.well-known/jwks.json): GET
 * /me takes the session tokens the gateway's proxy sends (/api/upstream/orders/me).
 */
import { createServer } from 'node:http'
import { pathToFileURL } from 'node:url'
// In a team's own API, with the platform installed as a dependency:
//   import { createAccessTokenVerifier, wwwAuthenticate } from 'identity-platform/verifier'
import { createAccessTokenVerifier, wwwAuthenticate } from '../../verifier/index.js'

const ORDERS = [
  { id: 'ord_1001', item: 'Analytical engine punch cards', quantity: 200 },
  { id: 'ord_1002', item: 'Brass gears', quantity: 12 },
]

const json = (res, status, body, headers = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers })
  res.end(JSON.stringify(body))
}

/**
 * The API as a request listener.
 * `session`: also accept the access tokens the gateway's proxy sends this API (/api/upstream/...,
 * signed by the IAM for this API's audience alone; their keys at the gateway's
 * /.well-known/jwks.json), on GET /me.
 * @param {{ issuer: string, audience: string, jwksUri?: string, introspection?: { clientId: string, clientSecret: string }, session?: { issuer: string, audience: string, jwksUri: string } }} options
 */
export function ordersApi({ issuer, audience, jwksUri, introspection, session }) {
  // one verifier per issuer for the process: each keeps its issuer's keys between requests
  const verify = createAccessTokenVerifier({ issuer, audience, jwksUri, introspection })
  const verifySession = session ? createAccessTokenVerifier(session) : undefined

  /** The verified token, or undefined after answering the failure. */
  const authorize = async (req, res, requiredScopes) => {
    const result = await verify(req.headers.authorization, { requiredScopes })
    if (result.ok) return result
    if (result.status === 503) {
      json(res, 503, { error: 'temporarily_unavailable', error_description: result.message }, { 'retry-after': '5' })
    } else {
      json(res, result.status, { error: result.error ?? 'unauthorized', error_description: result.message }, { 'www-authenticate': wwwAuthenticate(result, { realm: 'orders' }) })
    }
    return undefined
  }

  return async (req, res) => {
    const { pathname } = new URL(req.url ?? '/', 'http://localhost')
    try {
      if (pathname === '/health') return json(res, 200, { ok: true })
      if (pathname === '/me' && verifySession) {
        const result = await verifySession(req.headers.authorization)
        if (!result.ok) return json(res, result.status, { error: result.error ?? 'unauthorized', error_description: result.message }, { 'www-authenticate': wwwAuthenticate(result, { realm: 'orders' }) })
        return json(res, 200, { subject: result.subject, roles: result.roles })
      }
      if (pathname === '/orders') {
        if (req.method !== 'GET') return json(res, 405, { error: 'method_not_allowed' }, { allow: 'GET' })
        const token = await authorize(req, res, ['orders:read'])
        if (!token) return
        return json(res, 200, { subject: token.subject, clientId: token.clientId, scopes: token.scopes, orders: ORDERS })
      }
      json(res, 404, { error: 'not_found' })
    } catch (error) {
      console.error(error)
      if (!res.headersSent) json(res, 500, { error: 'server_error' })
    }
  }
}

async function main() {
  // every default is what `npm start` configures (scripts/start.mjs: the gateway on
  // localhost:3000, the IAM on 127.0.0.1:3001, this API as http://localhost:4100/), so it runs
  // beside it with no setting at all
  const issuer = process.env.ISSUER || 'http://localhost:3000/oidc'
  const audience = process.env.AUDIENCE || 'http://localhost:4100/'
  const { INTROSPECTION_CLIENT_ID: clientId, INTROSPECTION_CLIENT_SECRET: clientSecret } = process.env
  const introspection = clientId && clientSecret ? { clientId, clientSecret } : undefined
  // the tokens the gateway's proxy sends this API (GET /me): SESSION_ISSUER is the IAM's
  // jwt.access_tokens.issuer, SESSION_AUDIENCE this API's apis[].audience at the gateway (one of the
  // IAM's jwt.api_access_tokens.audiences), SESSION_JWKS_URI the gateway's /.well-known/jwks.json;
  // SESSION_ISSUER=off takes none
  const session =
    process.env.SESSION_ISSUER === 'off'
      ? undefined
      : {
          issuer: process.env.SESSION_ISSUER || 'http://127.0.0.1:3001',
          audience: process.env.SESSION_AUDIENCE || audience,
          jwksUri: process.env.SESSION_JWKS_URI || 'http://localhost:3000/.well-known/jwks.json',
        }
  const server = createServer(ordersApi({ issuer, audience, jwksUri: process.env.JWKS_URI || undefined, introspection, session }))
  server.listen(Number(process.env.PORT ?? 4100), '127.0.0.1', () => {
    console.log(`Orders API on http://127.0.0.1:${server.address().port} (tokens of ${issuer} for ${audience})`)
  })
  const stop = () => server.close(() => process.exit(0))
  process.on('SIGTERM', stop)
  process.on('SIGINT', stop)
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main()
