/**
 * The signed `state{name}` cookie value (gateway.md, Cookies): `<state>.<expiresAtMs>.<mac>` where
 * mac = base64url(HMAC-SHA256(cookieSecret, "auth-oauth.<provider>.<state>.<expiresAtMs>")).
 * The keyword binds the value to one provider, so a state minted for provider A is refused by B's
 * callback; the expiry inside the MAC makes a replayed cookie stale even if the browser kept it.
 * Pure node:crypto, time passed in.
 */
import { createHmac, timingSafeEqual } from 'node:crypto'

/** Lifetime of the state, PKCE and nonce cookies (gateway.md, Limits: 3 minutes). */
export const FLOW_COOKIE_TTL_MS = 180_000

/** The signing keyword of gateway.md (`auth-oauth.{providerName}`). */
export function stateKeyword(providerName: string): string {
  return `auth-oauth.${providerName}`
}

function mac(secret: string, providerName: string, state: string, expiresAtMs: number): Buffer {
  return createHmac('sha256', secret).update(`${stateKeyword(providerName)}.${state}.${expiresAtMs}`).digest()
}

/** The cookie value for `state`, valid until `expiresAtMs`. */
export function signState(secret: string, providerName: string, state: string, expiresAtMs: number): string {
  return `${state}.${expiresAtMs}.${mac(secret, providerName, state, expiresAtMs).toString('base64url')}`
}

/** The state carried by a cookie value, or null when its format, signature or expiry is wrong. */
export function verifyState(secret: string, providerName: string, value: string | undefined, nowMs: number): string | null {
  if (!value) return null
  const parts = value.split('.')
  if (parts.length !== 3) return null
  const [state, expiresRaw, macRaw] = parts as [string, string, string]
  if (!/^[A-Za-z0-9_-]{16,128}$/.test(state) || !/^\d{1,16}$/.test(expiresRaw)) return null
  const expiresAtMs = Number(expiresRaw)
  const given = Buffer.from(macRaw, 'base64url')
  const expected = mac(secret, providerName, state, expiresAtMs)
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null
  // checked after the MAC so an attacker learns nothing from timing about which part failed
  if (expiresAtMs <= nowMs) return null
  return state
}

/** Constant-time equality of two strings (state values). */
export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a)
  const right = Buffer.from(b)
  return left.length === right.length && timingSafeEqual(left, right)
}
