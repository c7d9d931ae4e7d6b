/**
 * Link purposes. The built-in flows own their names: a custom flow may not claim one, or a
 * custom-action link could be replayed against the MFA, reset or email-change routes.
 */
import { CUSTOM_REASON_PATTERN } from '../../contract/inputs'

export const MFA_PURPOSE = 'MAGIC_LINK_MFA_CHECKS'
export const PASSWORD_RESET_PURPOSE = 'PASSWORD_RESET'
/** Confirms the account's address (signup, email change); the link carries the address it was sent to. */
export const EMAIL_VERIFICATION_PURPOSE = 'EMAIL_VERIFICATION'
/** Mailed to the OLD address after an email change: puts that address back. */
export const UNDO_EMAIL_CHANGE_PURPOSE = 'UNDO_EMAIL_CHANGE'
/** The email change runs as a custom flow with this reason (DESIGN section 4). */
export const CHANGE_EMAIL_REASON = 'change_email'

const RESERVED = new Set([MFA_PURPOSE, PASSWORD_RESET_PURPOSE, 'CHANGE_EMAIL', 'MAGIC_LINK', EMAIL_VERIFICATION_PURPOSE, UNDO_EMAIL_CHANGE_PURPOSE])

/** A reason POST /custom/mfa/:reason accepts: `[A-Z0-9_]{3,64}` and not reserved, or `change_email`. */
export function isCustomReason(reason: string): boolean {
  if (reason === CHANGE_EMAIL_REASON) return true
  return CUSTOM_REASON_PATTERN.test(reason) && !RESERVED.has(reason)
}

/** A reason POST /auth/verify-custom-mfa completes (the email change has its own route). */
export const isGenericCustomReason = (reason: string): boolean => reason !== CHANGE_EMAIL_REASON && isCustomReason(reason)
