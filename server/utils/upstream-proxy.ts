/**
 * The token-mediating API proxy (docs/gateway.md, "Call your APIs through the gateway"): `/api/upstream/<name>/<path>?<query>` goes to
 * the configured API `<name>` only, at `<upstream base path><path>?<query>`, with an access token
 * of the signed-in user for that API's audience alone as `Authorization: Bearer`
 * (server/utils/upstream-token.ts; asked with the session's token, refreshed first when near
 * expiry through the BFF's one-refresh-per-browser logic). The session's own token never leaves:
 * with it, one API could call every other as the user. The browser's cookies and Authorization never leave the
 * gateway; only a short list of request headers does. The API's answer comes back with its status
 * and body, without Set-Cookie, hop-by-hop headers or anything that would loosen the gateway's own
 * security headers. Redirects are returned, never followed.
 */
import { getRequestHeader, readRawBody, setResponseHeader, setResponseStatus, type H3Event } from 'h3'
import { isCanonicalPath } from '../../iam/contract/request-path'
import { clientIpOf } from './client-ip'
import { useGatewayConfig, type ApiConfig } from './gateway-config'
import { useGatewayLog } from './log'
import { upstreamTokenFor } from './upstream-token'
import { ensureAccess } from './bff/session'
import { bffFail } from './bff/respond'

/** The request headers an API may read; everything else (Cookie, Authorization, Origin, ...) stays here. */
const PASSED_REQUEST_HEADERS = ['content-type', 'accept', 'accept-language', 'user-agent', 'if-none-match', 'if-modified-since'] as const

/**
 * Answer headers the gateway never takes from an API: hop-by-hop and framing (the gateway frames
 * its own answer, and the body arrives decoded), cookies (an API must not set or clear the
 * gateway's), and the gateway's security and CORS policy (set by 10.security-headers.ts for every
 * answer of this origin; an API could otherwise open it to other sites or to framing), and every
 * `access-control-*` header (CORS on this origin is the gateway's decision).
 */
const DROPPED_RESPONSE_HEADERS = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'trailers',
  'transfer-encoding',
  'upgrade',
  'content-length',
  'content-encoding',
  'set-cookie',
  'set-cookie2',
  'date',
  'x-request-id',
  'content-security-policy',
  'content-security-policy-report-only',
  'strict-transport-security',
  'x-frame-options',
  'x-content-type-options',
  'x-xss-protection',
  'referrer-policy',
  'permissions-policy',
  'cross-origin-opener-policy',
  'cross-origin-embedder-policy',
  'cross-origin-resource-policy',
  'clear-site-data',
  'alt-svc',
  'cache-control',
])

/** Methods without a request body. */
const BODYLESS = new Set(['GET', 'HEAD'])

/** The configured API `name`, if any. */
export function findApi(name: string): ApiConfig | undefined {
  return useGatewayConfig().apis.find((api) => api.name === name)
}

/**
 * The API URL for the request's raw path (still percent-encoded, after /api/upstream/<name>) and
 * raw query; undefined when the path is not canonical (iam/contract/request-path.ts: dot segments,
 * also percent-encoded, empty segments, encoded slashes or backslashes, double encoding, control
 * characters) or the query has control characters. The URL is then built by appending to the
 * base path, and must still have the base's origin and lie under its path.
 */
export function upstreamUrlFor(upstream: string, rawPath: string, rawQuery: string): URL | undefined {
  if (rawPath !== '' && !isCanonicalPath(rawPath)) return undefined
  // eslint-disable-next-line no-control-regex -- a query with control characters is refused
  if (/[\x00-\x20\x7f#]/.test(rawQuery)) return undefined
  const base = new URL(upstream)
  const basePath = base.pathname.replace(/\/+$/, '')
  const path = rawPath === '' ? base.pathname : `${basePath}${rawPath}`
  let target: URL
  try {
    target = new URL(`${base.origin}${path}${rawQuery ? `?${rawQuery}` : ''}`)
  } catch {
    return undefined
  }
  if (target.origin !== base.origin) return undefined
  if (basePath && target.pathname !== basePath && !target.pathname.startsWith(`${basePath}/`)) return undefined
  return target
}

/** The access token's payload, decoded and not verified: the IAM issued it, and the API verifies it. */
function claimsOf(token: string): Record<string, unknown> {
  try {
    const payload: unknown = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8'))
    return payload && typeof payload === 'object' && !Array.isArray(payload) ? (payload as Record<string, unknown>) : {}
  } catch {
    return {}
  }
}

/** `aud` is `audience` and nothing else: a token naming a second audience would be good at that API too. */
function hasOnlyAudience(claims: Record<string, unknown>, audience: string): boolean {
  const { aud } = claims
  return aud === audience || (Array.isArray(aud) && aud.length === 1 && aud[0] === audience)
}

/** What the token grants: its `roles` and the words of a `scope` claim. */
function grantsOf(claims: Record<string, unknown>): Set<string> {
  const roles = Array.isArray(claims.roles) ? claims.roles.filter((r): r is string => typeof r === 'string') : []
  const scope = typeof claims.scope === 'string' ? claims.scope.split(' ').filter(Boolean) : []
  return new Set([...roles, ...scope])
}

/**
 * The API's cache policy, never looser than private: an answer made for one user's token must not
 * be stored by a shared cache in front of the gateway (the browser's request carries no
 * Authorization there, only a cookie). Absent, the gateway's `no-store` stays.
 */
function privateCacheControl(value: string | null): string | undefined {
  if (!value) return undefined
  const directives = value
    .split(',')
    .map((d) => d.trim())
    .filter((d) => d && !/^(?:public|s-maxage\s*=.*|proxy-revalidate)$/i.test(d))
  if (!directives.some((d) => /^(?:private|no-store)$/i.test(d))) directives.unshift('private')
  return directives.join(', ')
}

/** The rest of the request after /api/upstream/<name>: raw path and raw query. */
function restOf(event: H3Event, name: string): { rawPath: string; rawQuery: string } {
  const url = event.node.req.url ?? '/'
  const q = url.indexOf('?')
  const path = q === -1 ? url : url.slice(0, q)
  const prefix = `/api/upstream/${name}`
  return { rawPath: path.startsWith(prefix) ? path.slice(prefix.length) : '\0', rawQuery: q === -1 ? '' : url.slice(q + 1) }
}

/** Forwards the request to API `name` and writes its answer; every refusal is JSON `{ ok: false, error }`. */
export async function proxyToApi(event: H3Event, name: string): Promise<ReadableStream<Uint8Array> | undefined> {
  const api = findApi(name)
  if (!api) bffFail(404, { ok: false, error: 'No such API.', code: 'api_not_found' })
  const { rawPath, rawQuery } = restOf(event, name)
  const target = upstreamUrlFor(api.upstream, rawPath, rawQuery)
  if (!target) bffFail(400, { ok: false, error: 'This path is not allowed.', code: 'path_not_allowed' })
  const clientIp = clientIpOf(event)
  if (!clientIp) bffFail(400, { ok: false, error: 'Your network address could not be determined.', code: 'client_ip_unknown' })

  const sessionToken = await ensureAccess(event)
  // roles are the session's (the API's token carries the same): a user without them costs no IAM call
  const grants = grantsOf(claimsOf(sessionToken))
  const missing = api.scopes.filter((scope) => !grants.has(scope))
  if (missing.length > 0) bffFail(403, { ok: false, error: 'Your account does not have the permission this API requires.', code: 'scope_missing', required: api.scopes })
  const token = await upstreamTokenFor(event, api, sessionToken)
  const log = useGatewayLog()
  if (!hasOnlyAudience(claimsOf(token), api.audience)) {
    // the IAM issues exactly the audience asked for; anything else is not sent anywhere
    log.error('upstream: the token the IAM issued is not for the API\'s audience alone', { requestId: event.context.requestId, api: api.name, audience: api.audience })
    bffFail(502, { ok: false, error: "Gateway misconfigured: the IAM does not issue tokens for this API's audience.", code: 'gateway_misconfigured' })
  }

  const headers: Record<string, string> = {}
  for (const header of PASSED_REQUEST_HEADERS) {
    const value = getRequestHeader(event, header)
    if (value !== undefined) headers[header] = value
  }
  headers.authorization = `Bearer ${token}`
  headers['x-forwarded-for'] = clientIp
  const requestId: unknown = event.context.requestId
  if (typeof requestId === 'string') headers['x-request-id'] = requestId
  const body = BODYLESS.has(event.method) ? undefined : await readRawBody(event, false)

  const abort = new AbortController()
  const timer = setTimeout(() => abort.abort(), api.timeoutMs)
  let answer: Response
  try {
    answer = await fetch(target, {
      method: event.method,
      headers,
      body: body && body.length > 0 ? new Uint8Array(body) : undefined,
      redirect: 'manual',
      signal: abort.signal,
    })
  } catch (error) {
    const timedOut = abort.signal.aborted
    log.warn(timedOut ? 'upstream: timed out' : 'upstream: unreachable', { requestId: event.context.requestId, api: api.name, err: error })
    if (timedOut) bffFail(504, { ok: false, error: 'The API did not answer in time.', code: 'upstream_timeout' })
    bffFail(502, { ok: false, error: 'The API is unreachable.', code: 'upstream_unreachable' })
  } finally {
    clearTimeout(timer)
  }

  setResponseStatus(event, answer.status, answer.statusText)
  // headers the API's Connection names are hop-by-hop too (RFC 9110 section 7.6.1)
  const named = new Set((answer.headers.get('connection') ?? '').split(',').map((h) => h.trim().toLowerCase()))
  answer.headers.forEach((value, header) => {
    if (!DROPPED_RESPONSE_HEADERS.has(header) && !named.has(header) && !header.startsWith('access-control-')) setResponseHeader(event, header, value)
  })
  const cacheControl = privateCacheControl(answer.headers.get('cache-control'))
  if (cacheControl) setResponseHeader(event, 'cache-control', cacheControl)
  if (event.method === 'HEAD' || !answer.body || answer.status === 204 || answer.status === 304) {
    await answer.body?.cancel()
    event.node.res.end()
    return undefined
  }
  return answer.body
}
