/**
 * The browser's session as the BFF sees it: an access token in `__Secure-a`, refreshed through the
 * IAM when it is missing (cookie expired) or in its last quarter of life (the IAM's refreshThreshold,
 * 25 % of the TTL, is what `shouldRotate` reports), and one shared refresh per browser: concurrent
 * requests with the same `session` cookie await the same IAM call, because the IAM rotates the refresh
 * token and a second, parallel rotation of the same token looks like reuse (RFC 9700 section 4.14).
 */
import { createHash } from 'node:crypto'
import type { H3Event } from 'h3'
import type { IamResponse } from '../../../iam/client/iam-client'
import { clearSessionCookies, currentCookie, forwardSetCookies, readIssuedAccess, setAccessCookies } from './cookies'
import { gatewayNow } from '../clock'
import type { BffRouteId, ForwardedCookie } from './allow-list'
import { callIam, callIamRoute, type BffIamCall } from './iam-call'
import { iamRouteCall, type IamRouteInput } from './iam-route'
import { bffFail, SERVICE_FAILED_MESSAGE, type BffFailureBody } from './respond'
import { endedWhy, sessionEndedMessage } from '../../../composables/session-ended'

/**
 * In flight per process, keyed by SHA-256 of the refresh and device cookies (never the cookies
 * themselves). A successful refresh stays for LINGER_MS after it settled: requests the browser sent
 * together do not all reach the gateway together (under load the last of four came after the first
 * one's refresh had settled, and rotated the same token again). They carry the same two cookies, for
 * which the IAM would only hand back the same successor within its reuse grace window (10 s by
 * default): the entry saves that round trip and never serves another device (its canary differs).
 */
const inFlight = new Map<string, Promise<IamResponse<unknown>>>()
const LINGER_MS = 2_000

export const SIGNED_OUT = { ok: false, signedOut: true, error: 'Your session has ended. Please sign in again.', code: 'signed_out' } as const

/**
 * SIGNED_OUT for a session the IAM refused, with why (`ended`, composables/session-ended.ts) when
 * its 401 says: the person is told on the page they land on, not only that the session ended.
 */
export function signedOutBody(iamBody?: unknown): BffFailureBody {
  const why = endedWhy(iamBody)
  return why ? { ...SIGNED_OUT, error: sessionEndedMessage(why), ended: why } : { ...SIGNED_OUT }
}

function msLeftRatio(token: string, nowMs: number): number {
  // Only timing is read here, never trusted: the IAM verifies the signature on every call.
  try {
    const payload = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as { exp?: unknown; iat?: unknown }
    if (typeof payload.exp !== 'number' || typeof payload.iat !== 'number' || payload.exp <= payload.iat) return 0
    return (payload.exp * 1000 - nowMs) / ((payload.exp - payload.iat) * 1000)
  } catch {
    return 0
  }
}

/** Rotates the refresh token once for all concurrent requests of this browser; applies the result to `event`. */
export async function refreshSession(event: H3Event): Promise<IamResponse<unknown>> {
  const session = currentCookie(event, 'session')
  if (!session) bffFail(401, SIGNED_OUT)
  const key = createHash('sha256').update(session).update('\0').update(currentCookie(event, 'canary_id') ?? '').digest('base64url')
  let pending = inFlight.get(key)
  if (!pending) {
    const call = callIamRoute(event, 'refreshSession', { cookies: ['session', 'canary_id'] })
    pending = call
    inFlight.set(key, call)
    // a failure is forgotten at once (the next request asks the IAM again); a success lingers
    const forget = () => {
      if (inFlight.get(key) === call) inFlight.delete(key)
    }
    call.then((res) => (res.status < 300 ? setTimeout(forget, LINGER_MS).unref() : forget()), forget)
  }
  const res = await pending
  event.context.bffRefreshed = true
  forwardSetCookies(event, res.setCookies)
  const issued = readIssuedAccess(res.body)
  if (res.status < 300 && issued) setAccessCookies(event, issued)
  return res
}

/** Turns a refresh (or another session call) that did not issue tokens into the page's state (MFA, rate limit, signed out). */
export function failRefresh(event: H3Event, res: IamResponse<unknown>): never {
  if (res.status === 202) {
    const message = (res.body as { message?: unknown } | null)?.message
    bffFail(202, { ok: false, mfa: true, message: typeof message === 'string' ? message : 'A login link has been sent to your email.', code: 'mfa_required' })
  }
  failRefreshBeyondMfa(event, res)
}

/**
 * A refresh that issued no tokens and waits for no MFA: 429 with the IAM's Retry-After, 502 when the
 * IAM failed, otherwise signed out (cookies cleared, 401). POST /api/auth/refresh answers the same.
 */
export function failRefreshBeyondMfa(event: H3Event, res: IamResponse<unknown>): never {
  if (res.status === 429) {
    const retry = res.headers.get('retry-after') ?? ''
    bffFail(429, { ok: false, error: 'Too many requests', code: 'rate_limited', retry: /^\d+$/.test(retry) ? Number(retry) : retry }, retry ? { 'retry-after': retry } : {})
  }
  if (res.status >= 500) bffFail(502, { ok: false, error: SERVICE_FAILED_MESSAGE, code: 'service_failed' })
  clearSessionCookies(event)
  bffFail(401, signedOutBody(res.body))
}

/** A usable access token for this request, refreshing first when needed; ends the request when signed out. */
export async function ensureAccess(event: H3Event): Promise<string> {
  if (!currentCookie(event, 'session')) {
    clearSessionCookies(event)
    bffFail(401, SIGNED_OUT)
  }
  const access = currentCookie(event, 'access')
  if (access && msLeftRatio(access, gatewayNow()) > 0.25) return access
  const res = await refreshSession(event)
  const fresh = currentCookie(event, 'access')
  if (res.status >= 300 || !fresh) failRefresh(event, res)
  return fresh
}

/**
 * An IAM call on behalf of the signed-in browser (Bearer + session + canary_id). A 401 is checked
 * against the session itself: when the session still stands (a wrong code, say), the 401 is the
 * action's answer; otherwise one refresh is tried and the call repeated, and a session the IAM
 * refuses to refresh (revoked, reused, expired) is cleared from the browser at once.
 */
export async function callAuthed<T = unknown>(
  event: H3Event,
  call: Omit<BffIamCall, 'bearer' | 'cookies'>,
  alsoCookies: readonly ForwardedCookie[] = [],
): Promise<IamResponse<T>> {
  const send = async () => callIam<T>(event, { ...call, bearer: await ensureAccess(event), cookies: ['session', 'canary_id', ...alsoCookies] })
  const res = await send()
  if (res.status !== 401) return res
  const probe = await callIamRoute(event, 'accessTokenMetadata', {
    bearer: currentCookie(event, 'access'),
    cookies: ['session', 'canary_id'],
  })
  if (probe.status === 200) return res
  if (probe.status === 202 || probe.status === 429) failRefresh(event, probe)
  if (event.context.bffRefreshed === true) {
    clearSessionCookies(event)
    bffFail(401, signedOutBody(probe.body))
  }
  const refreshed = await refreshSession(event)
  if (refreshed.status >= 300) failRefresh(event, refreshed)
  return send()
}

/** callAuthed for the IAM route `id` of the route table, with input typed by its entry's schemas. */
export function callAuthedRoute<I extends BffRouteId, T = unknown>(
  event: H3Event,
  id: I,
  input: Omit<IamRouteInput<I>, 'bearer' | 'cookies'>,
  alsoCookies: readonly ForwardedCookie[] = [],
): Promise<IamResponse<T>> {
  return callAuthed<T>(event, iamRouteCall(id, input as IamRouteInput<I>), alsoCookies)
}
