/**
 * The signed `state{name}` cookie value (gateway.md, Cookies): `<state>.<expiresAtMs>.<device>.<mac>`
 * where mac = base64url(HMAC-SHA256(cookieSecret, "auth-oauth.<provider>.<state>.<expiresAtMs>.<device>")).
 * The keyword binds the value to one provider, so a state minted for provider A is refused by B's
 * callback; the expiry inside the MAC makes a replayed cookie stale even if the browser kept it.
 * `device` is the browser's canary_id at the start (may be empty): a form_post callback is a
 * cross-site POST that does not carry the IAM's SameSite=Lax canary cookie, and the flow must log
 * in the device that started it rather than mint a new one. Pure node:crypto, time passed in.
 */
import { createHmac, timingSafeEqual } from 'node:crypto'

/** Lifetime of the state, PKCE and nonce cookies (gateway.md, Limits: 3 minutes). */
export const FLOW_COOKIE_TTL_MS = 180_000

/** The signing keyword of gateway.md (`auth-oauth.{providerName}`). */
export function stateKeyword(providerName: string): string {
  return `auth-oauth.${providerName}`
}

const DEVICE = /^[A-Za-z0-9_-]{0,128}$/

function mac(secret: string, providerName: string, state: string, expiresAtMs: number, device: string): Buffer {
  return createHmac('sha256', secret).update(`${stateKeyword(providerName)}.${state}.${expiresAtMs}.${device}`).digest()
}

/** The cookie value for `state`, valid until `expiresAtMs`; a `device` outside [A-Za-z0-9_-]{0,128} is left out. */
export function signState(secret: string, providerName: string, state: string, expiresAtMs: number, device = ''): string {
  const kept = DEVICE.test(device) ? device : ''
  return `${state}.${expiresAtMs}.${kept}.${mac(secret, providerName, state, expiresAtMs, kept).toString('base64url')}`
}

/** The state and device carried by a cookie value, or null when its format, signature or expiry is wrong. */
export function verifyState(
  secret: string,
  providerName: string,
  value: string | undefined,
  nowMs: number,
): { state: string; device: string } | null {
  if (!value) return null
  const parts = value.split('.')
  if (parts.length !== 4) return null
  const [state, expiresRaw, device, macRaw] = parts as [string, string, string, string]
  if (!/^[A-Za-z0-9_-]{16,128}$/.test(state) || !/^\d{1,16}$/.test(expiresRaw) || !DEVICE.test(device)) return null
  const expiresAtMs = Number(expiresRaw)
  const given = Buffer.from(macRaw, 'base64url')
  const expected = mac(secret, providerName, state, expiresAtMs, device)
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null
  // checked after the MAC so an attacker learns nothing from timing about which part failed
  if (expiresAtMs <= nowMs) return null
  return { state, device }
}

/** Constant-time equality of two strings (state values). */
export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a)
  const right = Buffer.from(b)
  return left.length === right.length && timingSafeEqual(left, right)
}
