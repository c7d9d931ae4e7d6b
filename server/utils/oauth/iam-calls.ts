/**
 * The flow's two IAM calls, through the gateway's signed IAM client (server/utils/iam.ts):
 * GET /check to give a browser its `canary_id` before the flow, and POST /auth/OAuth/{provider}
 * with the merged profile. Results are values; only bugs throw.
 */
import { getRequestHeader, type H3Event } from 'h3'
import { IamUnavailableError } from '../../../iam/client/iam-client'
import { currentCookie, parseSetCookie } from '../bff/cookies'
import { clientIpOf } from '../client-ip'
import { useIamClient } from '../iam'
import type { OAuthRedirectError } from './error-codes'
import { logOAuth } from './log'

const CANARY_COOKIE = 'canary_id'
// RFC 6265 section 4.1.1 cookie-octets, bounded
const COOKIE_VALUE = /^[\x21\x23-\x2B\x2D-\x3A\x3C-\x5B\x5D-\x7E]{1,512}$/

/** The end user's address and agent, forwarded to the IAM for its device and anomaly checks. */
function clientOf(event: H3Event): { clientIp?: string; userAgent?: string } {
  // X-Forwarded-For only from the configured trusted proxy (server/utils/client-ip.ts)
  return { clientIp: clientIpOf(event), userAgent: getRequestHeader(event, 'user-agent') || undefined }
}

export type CanaryResult =
  | { ok: true; canary: string; /** Set-Cookie headers for the browser (empty when it had one) */ setCookies: string[] }
  | { ok: false; code: OAuthRedirectError }

/**
 * The browser's canary_id; else `startedWith` (the canary bound into the state cookie, for a
 * form_post callback that arrives without the SameSite=Lax cookie); else a new one from the IAM's
 * GET /check.
 */
export async function ensureCanary(event: H3Event, startedWith = ''): Promise<CanaryResult> {
  // currentCookie also sees a canary that server/middleware/30.page-cookies.ts fetched (and
  // forwarded) earlier in this same request, so /check is not asked twice
  const existing = currentCookie(event, CANARY_COOKIE)
  // a value the IAM client could not put in a Cookie header (it would smuggle a second cookie) is
  // treated as absent: the IAM issues a fresh one
  if (existing && COOKIE_VALUE.test(existing)) return { ok: true, canary: existing, setCookies: [] }
  if (startedWith && COOKIE_VALUE.test(startedWith)) return { ok: true, canary: startedWith, setCookies: [] }
  const client = clientOf(event)
  // without an address the IAM would take the gateway's own for the user's
  if (!client.clientIp) return { ok: false, code: 'iam_rejected' }
  try {
    const res = await useIamClient().request({ method: 'GET', path: '/check', ...client })
    const setCookies = res.setCookies.filter((c) => parseSetCookie(c)?.name === CANARY_COOKIE)
    const canary = setCookies.map((c) => parseSetCookie(c)).find((c) => c && !c.cleared)?.value
    if (res.status === 503) return { ok: false, code: 'iam_unavailable' }
    if (res.status !== 200 || !canary) {
      logOAuth('warn', 'IAM /check did not issue a canary', { status: res.status })
      return { ok: false, code: 'iam_rejected' }
    }
    return { ok: true, canary, setCookies }
  } catch (error) {
    if (!(error instanceof IamUnavailableError)) throw error
    logOAuth('error', 'IAM unreachable on /check', { reason: error.message })
    return { ok: false, code: 'iam_unavailable' }
  }
}

/** The IAM's OAuth login success body. */
export interface IamLoginSuccess {
  accessToken: string
  accessIat: number
  expiresInMs: number
  /** the IAM's Set-Cookie headers (the `session` refresh cookie), forwarded as they are */
  setCookies: string[]
}

export type IamLoginResult =
  | ({ ok: true } & IamLoginSuccess)
  /** the account has a second factor: no session yet; the login page finishes with the challenge */
  | { ok: true; secondFactor: { challenge: string } }
  /** `retry`: a rate limit's wait in seconds, for the error page to say when to try again */
  | { ok: false; error: OAuthRedirectError; retry?: number }

function secondFactorOf(body: unknown): { challenge: string } | null {
  const step = body && typeof body === 'object' ? (body as Record<string, unknown>)['secondFactor'] : undefined
  const challenge = step && typeof step === 'object' ? (step as Record<string, unknown>)['challenge'] : undefined
  return typeof challenge === 'string' && /^[A-Za-z0-9_-]{43}$/.test(challenge) ? { challenge } : null
}

function isSuccessBody(body: unknown): body is { accessToken: string; accessIat: number; expiresInMs: number } {
  if (!body || typeof body !== 'object') return false
  const b = body as Record<string, unknown>
  return typeof b['accessToken'] === 'string' && typeof b['accessIat'] === 'number' && typeof b['expiresInMs'] === 'number'
}

/** POST {iam}/auth/OAuth/{provider} with the profile and the canary; maps the answer to a result. */
export async function loginAtIam(
  event: H3Event,
  providerName: string,
  user: Record<string, unknown>,
  canary: string,
): Promise<IamLoginResult> {
  const client = clientOf(event)
  if (!client.clientIp) return { ok: false, error: 'iam_rejected' }
  try {
    const res = await useIamClient().request({
      method: 'POST',
      path: `/auth/OAuth/${encodeURIComponent(providerName)}`,
      body: user,
      cookies: { [CANARY_COOKIE]: canary },
      ...client,
      // the profile this code just verified: the one purpose the IAM's OAuth sign-in route accepts
      purpose: 'oauth-callback',
    })
    if ((res.status === 200 || res.status === 201) && isSuccessBody(res.body)) {
      const { accessToken, accessIat, expiresInMs } = res.body
      return { ok: true, accessToken, accessIat, expiresInMs, setCookies: res.setCookies }
    }
    const secondFactor = res.status === 200 ? secondFactorOf(res.body) : null
    if (secondFactor) return { ok: true, secondFactor }
    logOAuth('warn', 'IAM refused the OAuth login', { provider: providerName, status: res.status })
    if (res.status === 409) return { ok: false, error: 'iam_conflict' }
    if (res.status === 429) {
      const retry = (res.body as { retry?: unknown } | null)?.retry
      return { ok: false, error: 'rate_limited', ...(typeof retry === 'number' && Number.isSafeInteger(retry) && retry >= 0 ? { retry } : {}) }
    }
    if (res.status === 503) return { ok: false, error: 'iam_unavailable' }
    return { ok: false, error: 'iam_rejected' }
  } catch (error) {
    if (!(error instanceof IamUnavailableError)) throw error
    logOAuth('error', 'IAM unreachable on OAuth login', { provider: providerName, reason: error.message })
    return { ok: false, error: 'iam_unavailable' }
  }
}
