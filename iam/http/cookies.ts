/**
 * The IAM's cookies: `session` (refresh token: HttpOnly, Secure, SameSite=Strict, Path=/, Domain
 * from refresh_tokens.domain unless it is localhost or an IP, where browsers reject a Domain) and
 * `canary_id` (the device: HttpOnly, Secure, SameSite=Lax so top-level navigations keep it, 90 days).
 */
import { deleteCookie, parseCookies, setCookie, type H3Event } from 'h3'
import type { IamConfig } from '../lib/config-schema'
import { isIP } from '../../shared/ip'

export const SESSION_COOKIE = 'session'
export const CANARY_COOKIE = 'canary_id'
const CANARY_MAX_AGE_S = 90 * 24 * 60 * 60

/**
 * The Domain attribute of the `session` cookie, or undefined for a host-only cookie (the default:
 * `localhost`). A Domain sends the refresh token to every subdomain, so boot warns when one is set.
 */
export function cookieDomain(config: Readonly<IamConfig>): string | undefined {
  const domain = config.jwt.refresh_tokens.domain.replace(/^\./, '')
  if (!domain || domain === 'localhost' || domain.endsWith('.localhost') || isIP(domain.replace(/^\[|\]$/g, ''))) return undefined
  return domain
}

/** Sets the refresh-token cookie, living as long as the token. */
export function setSessionCookie(event: H3Event, config: Readonly<IamConfig>, token: string, expiresAt: number, now: number): void {
  setCookie(event, SESSION_COOKIE, token, {
    httpOnly: true,
    secure: true,
    sameSite: 'strict',
    path: '/',
    domain: cookieDomain(config),
    maxAge: Math.max(1, Math.floor((expiresAt - now) / 1000)),
  })
}

export function clearSessionCookie(event: H3Event, config: Readonly<IamConfig>): void {
  deleteCookie(event, SESSION_COOKIE, { httpOnly: true, secure: true, sameSite: 'strict', path: '/', domain: cookieDomain(config) })
}

export function setCanaryCookie(event: H3Event, canaryId: string): void {
  setCookie(event, CANARY_COOKIE, canaryId, { httpOnly: true, secure: true, sameSite: 'lax', path: '/', maxAge: CANARY_MAX_AGE_S })
}

// The request's cookies, parsed once: full authentication reads the session cookie in the
// request rules and again in its chain, and the canary cookie besides (h3's getCookie parses the
// whole header on every call).
const parsedCookies = new WeakMap<H3Event, Record<string, string>>()

function requestCookie(event: H3Event, name: string): string | undefined {
  let cookies = parsedCookies.get(event)
  if (!cookies) {
    cookies = parseCookies(event)
    parsedCookies.set(event, cookies)
  }
  return cookies[name] || undefined
}

export const getSessionCookie = (event: H3Event): string | undefined => requestCookie(event, SESSION_COOKIE)
export const getCanaryCookie = (event: H3Event): string | undefined => requestCookie(event, CANARY_COOKIE)
