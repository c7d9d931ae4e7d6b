/**
 * Request schemas more than one route (or a feature) reads: the magic-link query, the emailed
 * code, the custom-MFA reason and the fields of a provider profile. Pure zod: the route table,
 * its handlers and the gateway share them.
 */
import { z } from 'zod'
import { safeString } from './text'

/**
 * The query of a magic link (`token`, `random`, `reason`, `visitor`, all required strings), checked
 * for shape before any crypto or SQL runs. A malformed link is the same 400 as a bad one.
 */
export const linkQuery = z.object({
  token: safeString().min(1).max(2048).regex(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/),
  // 32 bytes in base64url without padding
  random: safeString().regex(/^[A-Za-z0-9_-]{43}$/),
  reason: safeString().regex(/^[A-Za-z0-9_]{1,64}$/),
  visitor: safeString().regex(/^[A-Za-z0-9_.-]{1,128}$/),
})

/** Body `{ code }`: exactly 7 ASCII digits. */
export const code = safeString({ error: 'The code is required' }).regex(/^\d{7}$/, 'The code has 7 digits')

/** A solution of GET /auth/bot-challenge (base64 of ALTCHA's JSON payload); required while botChallenge.enabled (http/bot-check.ts) */
export const botProof = z.string().max(4096).optional()

/** The shape of a custom-MFA reason. */
export const CUSTOM_REASON_PATTERN = /^[A-Z0-9_]{3,64}$/
/** The email change runs as a custom flow with this reason. */
export const CHANGE_EMAIL_REASON = 'change_email'
/**
 * The link purposes of the built-in flows (features/mfa/purposes.ts): a custom flow may not claim
 * one, or a custom-action link could be replayed against the MFA, reset or email-change routes.
 */
export const RESERVED_REASONS = ['MAGIC_LINK_MFA_CHECKS', 'PASSWORD_RESET', 'CHANGE_EMAIL', 'MAGIC_LINK', 'EMAIL_VERIFICATION', 'UNDO_EMAIL_CHANGE', 'CONFIRM_EMAIL_CHANGE', 'REAUTHENTICATE', 'DELETE_ACCOUNT', 'UNDO_DELETE_ACCOUNT', 'EMAIL_SIGN_IN'] as const
export type ReservedReason = (typeof RESERVED_REASONS)[number]
const RESERVED: ReadonlySet<string> = new Set(RESERVED_REASONS)

/** A reason POST /custom/mfa/:reason accepts: `[A-Z0-9_]{3,64}` and not reserved, or `change_email`. */
export function isCustomReason(reason: string): boolean {
  if (reason === CHANGE_EMAIL_REASON) return true
  return CUSTOM_REASON_PATTERN.test(reason) && !RESERVED.has(reason)
}

const providerUserId = z.union([safeString().trim().min(1).max(255), z.number().int().nonnegative()]).transform(String)
const text = (max: number) => safeString().trim().max(max).optional()
const verified = z
  .union([z.boolean(), z.enum(['true', 'false'])])
  .optional()
  .transform((v) => v === true || v === 'true')

/**
 * Our fields of a provider profile, after features/oauth-login/provider-profile.ts picked them out
 * of the forwarded body per the provider's mapping (config `providers`).
 */
export const providerProfile = z.object({
  id: providerUserId,
  email: safeString().trim().min(3).max(254),
  email_verified: verified,
  name: text(200),
  given_name: text(100),
  family_name: text(100),
  picture: safeString().trim().max(2048).optional(),
})
