/**
 * The token the API proxy sends one API (server/utils/upstream-proxy.ts): asked of the IAM for the
 * API's audience alone (POST /auth/user/api-access-token), so what one API receives is refused by
 * every other's audience check. Kept in this process's memory per session and API (never in a
 * cookie: the browser never holds an access token) and reused while more than a quarter of its
 * life is left, the rule of the session's own token (bff/session.ts); parallel calls of one session
 * to one API share one IAM call.
 */
import { createHash } from 'node:crypto'
import type { H3Event } from 'h3'
import type { IamResponse } from '../../iam/client/iam-client'
import { currentCookie } from './bff/cookies'
import { callIamRoute } from './bff/iam-call'
import { iamFailureCode } from './bff/iam-route'
import { bffFail, SERVICE_FAILED_MESSAGE } from './bff/respond'
import { failRefresh } from './bff/session'
import { gatewayNow } from './clock'
import type { ApiConfig } from './gateway-config'
import { useGatewayLog } from './log'

interface Issued {
  token: string
  /** ms since the epoch, by the token's own iat and exp */
  issuedAt: number
  expiresAt: number
}

/**
 * Keyed by SHA-256 of everything the IAM authenticated the issuance with (the session cookie, the
 * device cookie, the session's access token) and the API: an entry serves only a request carrying
 * that same credential set, so a browser cannot name another session's entry, and a refreshed
 * session (new cookie, new token) asks again. At most MAX_ENTRIES, oldest dropped first.
 */
const issued = new Map<string, Issued>()
const inFlight = new Map<string, Promise<IamResponse<unknown>>>()
const MAX_ENTRIES = 10_000

function keyOf(event: H3Event, sessionToken: string, api: ApiConfig): string {
  const hash = createHash('sha256')
  for (const part of [currentCookie(event, 'session') ?? '', currentCookie(event, 'canary_id') ?? '', sessionToken, api.name, api.audience]) hash.update(part).update('\0')
  return hash.digest('base64url')
}

/** iat and exp of a token the IAM just issued (read for timing only; the API verifies it). */
function timesOf(token: string): { issuedAt: number; expiresAt: number } | undefined {
  try {
    const payload = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as { iat?: unknown; exp?: unknown }
    if (typeof payload.iat !== 'number' || typeof payload.exp !== 'number' || payload.exp <= payload.iat) return undefined
    return { issuedAt: payload.iat * 1000, expiresAt: payload.exp * 1000 }
  } catch {
    return undefined
  }
}

const fresh = (entry: Issued, now: number) => entry.expiresAt - now > (entry.expiresAt - entry.issuedAt) / 4

function remember(key: string, entry: Issued, now: number): void {
  if (issued.size >= MAX_ENTRIES) {
    for (const [k, e] of issued) if (e.expiresAt <= now) issued.delete(k)
    while (issued.size >= MAX_ENTRIES) issued.delete(issued.keys().next().value!)
  }
  issued.set(key, entry)
}

/** The access token for `api` of this request's session (`sessionToken`: its verified-fresh session token, ensureAccess). */
export async function upstreamTokenFor(event: H3Event, api: ApiConfig, sessionToken: string): Promise<string> {
  const key = keyOf(event, sessionToken, api)
  const cached = issued.get(key)
  if (cached && fresh(cached, gatewayNow())) return cached.token
  let pending = inFlight.get(key)
  if (!pending) {
    const call = callIamRoute(event, 'apiAccessToken', { bearer: sessionToken, cookies: ['session', 'canary_id'], body: { audience: api.audience } })
    pending = call
    inFlight.set(key, call)
    const forget = () => {
      if (inFlight.get(key) === call) inFlight.delete(key)
    }
    call.then(forget, forget)
  }
  const res = await pending
  const body = res.body as { accessToken?: unknown } | null
  if (res.status === 200 && typeof body?.accessToken === 'string') {
    const times = timesOf(body.accessToken)
    if (times) {
      const entry = { token: body.accessToken, ...times }
      if (!issued.has(key)) remember(key, entry, gatewayNow())
      return entry.token
    }
  }
  if (iamFailureCode('apiAccessToken', res.body) === 'audience_not_allowed') {
    useGatewayLog().error("upstream: the IAM does not issue tokens for the API's audience (list apis[].audience in the IAM's jwt.api_access_tokens.audiences)", {
      requestId: event.context.requestId,
      api: api.name,
      audience: api.audience,
    })
    bffFail(502, { ok: false, error: "Gateway misconfigured: the IAM does not issue tokens for this API's audience.", code: 'gateway_misconfigured' })
  }
  if (res.status === 200) bffFail(502, { ok: false, error: SERVICE_FAILED_MESSAGE, code: 'service_failed' })
  // the session the token was asked with no longer stands (revoked, banned device, an anomaly's code pending)
  failRefresh(event, res)
}
