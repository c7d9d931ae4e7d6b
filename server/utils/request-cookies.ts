/**
 * The request's cookies, parsed once per request. h3's getCookie parses the whole Cookie header at
 * every call, and one BFF call reads several: the session, the device, the access token, the
 * language and time zone, the cookies passed on to the IAM. The header does not change while the
 * request is served (a cookie a refresh replaced earlier in the same request is read from
 * event.context instead: bff/cookies.ts currentCookie).
 */
import { parseCookies, type H3Event } from 'h3'

declare module 'h3' {
  interface H3EventContext {
    /** the request's Cookie header, parsed (requestCookie) */
    requestCookies?: Record<string, string>
  }
}

/** The value of the request's cookie `name` (as h3's getCookie reads it), or undefined. */
export function requestCookie(event: H3Event, name: string): string | undefined {
  return (event.context.requestCookies ??= parseCookies(event))[name]
}
