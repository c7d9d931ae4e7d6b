/**
 * The browser's auth cookies (gateway.md "Cookies"): the access token lives in `__Secure-a` and its
 * issue time in `a-iat`, both HttpOnly + Secure + SameSite=Strict, so page JavaScript never holds a
 * bearer token (an XSS cannot exfiltrate it). `session` (refresh token) and `canary_id` (device) are
 * the IAM's cookies: the BFF forwards the IAM's Set-Cookie headers verbatim and never mints them.
 */
import { parseSetCookie as parseCookieHeader } from 'cookie-es'
import { appendResponseHeader, deleteCookie, getCookie, setCookie, type H3Event } from 'h3'
import { gatewayNow } from '../clock'

export const ACCESS_COOKIE = '__Secure-a'
export const ACCESS_IAT_COOKIE = 'a-iat'
export const SESSION_COOKIE = 'session'
export const CANARY_COOKIE = 'canary_id'

/** RFC 6265 cookie-value octets: anything else could smuggle a second cookie, and is no value the IAM issued. */
export const isCookieValue = (value: string): boolean => /^[\x21\x23-\x2B\x2D-\x3A\x3C-\x5B\x5D-\x7E]+$/.test(value)

const authCookie = { httpOnly: true, secure: true, sameSite: 'strict', path: '/' } as const

/** What the IAM returns when it issues tokens (its success bodies). */
export interface IssuedAccess {
  accessToken: string
  accessIat: number
  expiresInMs: number
}

/** Narrows an IAM body to issued tokens. */
export function readIssuedAccess(body: unknown): IssuedAccess | undefined {
  if (!body || typeof body !== 'object') return undefined
  const { accessToken, accessIat, expiresInMs } = body as Record<string, unknown>
  if (typeof accessToken !== 'string' || !accessToken) return undefined
  return {
    accessToken,
    accessIat: typeof accessIat === 'number' ? accessIat : gatewayNow(),
    expiresInMs: typeof expiresInMs === 'number' && expiresInMs > 0 ? expiresInMs : 15 * 60_000,
  }
}

/** Sets `__Secure-a` + `a-iat`; they expire with the token so an expired cookie means "refresh". */
export function setAccessCookies(event: H3Event, issued: IssuedAccess): void {
  const maxAge = Math.max(1, Math.floor(issued.expiresInMs / 1000))
  setCookie(event, ACCESS_COOKIE, issued.accessToken, { ...authCookie, maxAge })
  setCookie(event, ACCESS_IAT_COOKIE, String(issued.accessIat), { ...authCookie, maxAge })
  // later reads in this same request see the new token
  event.context.bffAccessToken = issued.accessToken
}

/** Removes the gateway's own auth cookies (the IAM clears `session` itself on logout). */
export function clearAccessCookies(event: H3Event): void {
  deleteCookie(event, ACCESS_COOKIE, authCookie)
  deleteCookie(event, ACCESS_IAT_COOKIE, authCookie)
  event.context.bffAccessToken = ''
}

/** Clears every session cookie the browser holds for this site (after a 401 re-login). */
export function clearSessionCookies(event: H3Event): void {
  clearAccessCookies(event)
  deleteCookie(event, SESSION_COOKIE, authCookie)
  event.context.bffSession = ''
}

/** Passes the IAM's Set-Cookie headers to the browser unchanged and remembers new values for this request. */
export function forwardSetCookies(event: H3Event, setCookies: string[]): void {
  for (const raw of setCookies) {
    appendResponseHeader(event, 'set-cookie', raw)
    const parsed = parseSetCookie(raw)
    if (parsed?.name === SESSION_COOKIE) event.context.bffSession = parsed.cleared ? '' : parsed.value
    if (parsed?.name === CANARY_COOKIE && !parsed.cleared) event.context.bffCanary = parsed.value
  }
}

/**
 * name, value and whether the header deletes the cookie (empty value, Max-Age<=0 or a past
 * Expires). The value stays as sent (no URL decoding): it is forwarded to the IAM byte for byte.
 */
export function parseSetCookie(raw: string, nowMs = gatewayNow()): { name: string; value: string; cleared: boolean } | undefined {
  const cookie = parseCookieHeader(raw, { decode: false })
  const name = cookie.name.trim()
  if (!name) return undefined
  const value = cookie.value.trim()
  const expired = cookie.expires !== undefined && cookie.expires.getTime() <= nowMs
  const cleared = value === '' || (cookie.maxAge !== undefined && cookie.maxAge <= 0) || expired
  return { name, value, cleared }
}

/**
 * The browser's cookie as the rest of this request should see it: a refresh or /check earlier in
 * the same request replaced it (event.context), otherwise the request's Cookie header.
 */
export function currentCookie(event: H3Event, name: 'session' | 'canary_id' | 'access'): string | undefined {
  const key = name === 'session' ? 'bffSession' : name === 'canary_id' ? 'bffCanary' : 'bffAccessToken'
  const fromContext: unknown = event.context[key]
  if (typeof fromContext === 'string') return fromContext || undefined
  return getCookie(event, name === 'access' ? ACCESS_COOKIE : name) || undefined
}
