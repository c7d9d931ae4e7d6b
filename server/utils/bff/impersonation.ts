/**
 * Impersonation in the browser (docs/administration.md): a platform administrator's session is
 * swapped for a session of the account, and swapped back at the end.
 *
 * While impersonating, the browser's `session` cookie is the account's session (the IAM's
 * Set-Cookie, forwarded as for a sign-in), and the administrator's own refresh token waits in
 * `__Secure-admin-session`: HttpOnly, Secure, SameSite=Strict and sent only to the BFF's /api
 * routes (the admin routes to restore it, the sign-out to end it), so no page script ever reads it,
 * and no IAM call forwards it (a call names the cookies it forwards: allow-list.ts). `__Secure-admin-who` holds the administrator's
 * email for the banner (display only: whether a session is impersonated is the access token's
 * `act`, which only the IAM signs).
 *
 * The end (POST /api/admin/impersonation/end) logs the account's session out at the IAM (which
 * records the end on both accounts) and refreshes the administrator's kept token, so the IAM
 * sets the administrator's session cookie again; the kept cookies are cleared. Signing out while
 * impersonating ends both sessions (server/utils/bff/sign-out.ts).
 */
import { deleteCookie, getCookie, setCookie, type H3Event } from 'h3'
import { clearAccessCookies, currentCookie, forwardSetCookies, isCookieValue } from './cookies'
import { callIamRoute } from './iam-call'
import { BffReply } from './respond'
import { refreshSession } from './session'

export const ADMIN_SESSION_COOKIE = '__Secure-admin-session'
export const ADMIN_WHO_COOKIE = '__Secure-admin-who'
/** Only the BFF's routes receive the kept session (End under /api/admin, the sign-out under /api/auth). */
const KEPT_PATH = '/api'
/** How long the administrator's session is kept aside: past any impersonation (at most an hour), so End always finds it. */
const KEPT_SECONDS = 12 * 60 * 60

const kept = { httpOnly: true, secure: true, sameSite: 'strict', path: KEPT_PATH } as const
const shown = { httpOnly: true, secure: true, sameSite: 'strict', path: '/' } as const

/** Keeps the administrator's refresh token (read before the swap) and email aside. */
export function keepAdminSession(event: H3Event, adminRefreshToken: string, adminEmail: string | null): void {
  setCookie(event, ADMIN_SESSION_COOKIE, adminRefreshToken, { ...kept, maxAge: KEPT_SECONDS })
  setCookie(event, ADMIN_WHO_COOKIE, encodeURIComponent(adminEmail ?? ''), { ...shown, maxAge: KEPT_SECONDS })
}

/** The administrator's email while impersonating (for the banner), or null. */
export function impersonatingAdminEmail(event: H3Event): string | null {
  const raw = getCookie(event, ADMIN_WHO_COOKIE)
  if (!raw) return null
  try {
    return decodeURIComponent(raw) || null
  } catch {
    return null
  }
}

function forgetKept(event: H3Event): void {
  deleteCookie(event, ADMIN_SESSION_COOKIE, kept)
  deleteCookie(event, ADMIN_WHO_COOKIE, shown)
}

/** Ends the account's session at the IAM (logout: recorded on both accounts); the browser's cookies follow its Set-Cookie. */
async function logoutCurrent(event: H3Event): Promise<void> {
  if (!currentCookie(event, 'session')) return
  try {
    const res = await callIamRoute(event, 'logout', { bearer: currentCookie(event, 'access') ?? 'expired', cookies: ['session', 'canary_id'] })
    forwardSetCookies(event, res.setCookies)
  } catch (error) {
    if (!(error instanceof BffReply)) throw error
  }
  clearAccessCookies(event)
}

/**
 * Ends the impersonation and brings the administrator's session back. `restored`: false when
 * there was no kept session, or the IAM no longer takes it (it ended meanwhile): the browser is
 * then signed out and the administrator signs in again.
 */
export async function endImpersonation(event: H3Event): Promise<{ restored: boolean }> {
  const adminToken = getCookie(event, ADMIN_SESSION_COOKIE)
  await logoutCurrent(event)
  forgetKept(event)
  if (!adminToken || !isCookieValue(adminToken)) return { restored: false }
  // the refresh reads the session cookie of this request: the administrator's, from here on
  event.context.bffSession = adminToken
  event.context.bffRefreshed = false
  const res = await refreshSession(event)
  return { restored: res.status < 300 }
}

/** Signing out while impersonating: the administrator's kept session ends too (best effort, as every sign-out). */
export async function endKeptAdminSession(event: H3Event): Promise<void> {
  const adminToken = getCookie(event, ADMIN_SESSION_COOKIE)
  if (adminToken && isCookieValue(adminToken)) {
    const before = event.context.bffSession
    event.context.bffSession = adminToken
    try {
      // the IAM's Set-Cookie of this call is not forwarded: it names the cookie the caller clears anyway
      await callIamRoute(event, 'logout', { bearer: 'expired', cookies: ['session', 'canary_id'] })
    } catch (error) {
      if (!(error instanceof BffReply)) throw error
    } finally {
      event.context.bffSession = before
    }
  }
  if (adminToken !== undefined || getCookie(event, ADMIN_WHO_COOKIE) !== undefined) forgetKept(event)
}
