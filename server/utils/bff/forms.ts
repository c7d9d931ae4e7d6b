/**
 * Plain HTML form posts (pages without JavaScript). They cannot send the CSRF header, so they carry
 * a double-submit token instead: the `__Host-csrf` cookie (set with the page) equals the `_csrf` field.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto'
import { getCookie, getRequestHeader, setCookie, type H3Event } from 'h3'

export const CSRF_COOKIE = '__Host-csrf'

/** true for `application/x-www-form-urlencoded` bodies (what a no-JS <form method="post"> sends). */
export function isFormPost(event: H3Event): boolean {
  return (getRequestHeader(event, 'content-type') ?? '').toLowerCase().startsWith('application/x-www-form-urlencoded')
}

/** The page's CSRF token: the existing cookie, or a new one (32 random bytes) set now. */
export function issueCsrfToken(event: H3Event): string {
  const existing = getCookie(event, CSRF_COOKIE)
  if (existing && /^[A-Za-z0-9_-]{43}$/.test(existing)) return existing
  const token = randomBytes(32).toString('base64url')
  setCookie(event, CSRF_COOKIE, token, { httpOnly: true, secure: true, sameSite: 'strict', path: '/' })
  return token
}

/** Constant-time check of the form's `_csrf` field against the cookie. */
export function csrfTokenMatches(event: H3Event, field: unknown): boolean {
  const cookie = getCookie(event, CSRF_COOKIE)
  if (!cookie || typeof field !== 'string') return false
  const a = Buffer.from(cookie)
  const b = Buffer.from(field)
  return a.length === b.length && timingSafeEqual(a, b)
}
