/**
 * RFC 6238 TOTP with otpauth: SHA-1, 6 digits, 30 s steps (the parameters every authenticator app
 * understands), one step of drift either side (RFC 6238 §5.2). A verified code yields the time step
 * it belongs to; the caller accepts it only if that step is later than the last one used (§5.2:
 * "the verifier MUST NOT accept the second attempt of the OTP after the successful validation").
 */
import { Secret, TOTP } from 'otpauth'

const PERIOD_S = 30
const DIGITS = 6
const DRIFT_STEPS = 1

/** 20 random bytes (160 bits, RFC 4226 §4's recommended length), base32 as authenticator apps take it. */
export const newTotpSecret = (): string => new Secret({ size: 20 }).base32

const totpOf = (secretBase32: string, issuer = '', label = '') =>
  new TOTP({ issuer, label, algorithm: 'SHA1', digits: DIGITS, period: PERIOD_S, secret: Secret.fromBase32(secretBase32) })

/** The otpauth:// URI an authenticator app scans (Key Uri Format). */
export const totpUri = (secretBase32: string, issuer: string, label: string): string => totpOf(secretBase32, issuer, label).toString()

/** A TOTP code has exactly 6 ASCII digits. */
export const isTotpCode = (code: string): boolean => /^\d{6}$/.test(code)

/** The time step the code matches at `nowMs` (within the drift), or null. */
export function matchTotpStep(secretBase32: string, code: string, nowMs: number): number | null {
  if (!isTotpCode(code)) return null
  const totp = totpOf(secretBase32)
  const delta = totp.validate({ token: code, timestamp: nowMs, window: DRIFT_STEPS })
  return delta === null ? null : totp.counter({ timestamp: nowMs }) + delta
}
