/**
 * The browser's session cookies after an OAuth login (gateway.md, Cookies): `__Secure-a` holds the
 * IAM access token and `a-iat` its issue time (ms). HttpOnly (no script reads them), Secure,
 * SameSite=Strict, Path=/, and they live as long as the access token (the BFF refreshes it
 * through the `session` cookie the IAM set). The IAM's own Set-Cookie headers are forwarded as they are.
 */
import { appendResponseHeader, setCookie, type H3Event } from 'h3'

export const ACCESS_COOKIE = '__Secure-a'
export const ACCESS_IAT_COOKIE = 'a-iat'

/** Sets the access token cookies and forwards the IAM's Set-Cookie headers. */
export function setSessionCookies(
  event: H3Event,
  login: { accessToken: string; accessIat: number; expiresInMs: number; setCookies: string[] },
): void {
  const attrs = {
    httpOnly: true,
    secure: true,
    sameSite: 'strict' as const,
    path: '/',
    maxAge: Math.max(1, Math.floor(login.expiresInMs / 1000)),
  }
  setCookie(event, ACCESS_COOKIE, login.accessToken, attrs)
  setCookie(event, ACCESS_IAT_COOKIE, String(login.accessIat), attrs)
  for (const header of login.setCookies) appendResponseHeader(event, 'set-cookie', header)
}
