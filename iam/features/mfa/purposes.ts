/**
 * Link purposes. The built-in flows own their names: a custom flow may not claim one, or a
 * custom-action link could be replayed against the MFA, reset or email-change routes.
 */
import { CHANGE_EMAIL_REASON, isCustomReason, type ReservedReason } from '../../contract/inputs'

export { CHANGE_EMAIL_REASON, isCustomReason }

export const MFA_PURPOSE = 'MAGIC_LINK_MFA_CHECKS' satisfies ReservedReason
export const PASSWORD_RESET_PURPOSE = 'PASSWORD_RESET' satisfies ReservedReason
/** Confirms the account's address (signup, email change); the link carries the address it was sent to. */
export const EMAIL_VERIFICATION_PURPOSE = 'EMAIL_VERIFICATION' satisfies ReservedReason
/**
 * Mailed to the NEW address of an email change: the change happens only once it is used, so a
 * mistyped address never takes the account (features/account-actions/email-change.ts).
 */
export const CONFIRM_EMAIL_CHANGE_PURPOSE = 'CONFIRM_EMAIL_CHANGE' satisfies ReservedReason
/** Mailed to the OLD address after an email change: puts that address back. */
export const UNDO_EMAIL_CHANGE_PURPOSE = 'UNDO_EMAIL_CHANGE' satisfies ReservedReason
/** Confirms a deletion the signed-in owner asked for (features/account-deletion). */
export const DELETE_ACCOUNT_PURPOSE = 'DELETE_ACCOUNT' satisfies ReservedReason
/** Mailed once a deletion is confirmed: cancels it until the purge. */
export const UNDO_DELETE_ACCOUNT_PURPOSE = 'UNDO_DELETE_ACCOUNT' satisfies ReservedReason
/** The emailed code of POST /auth/reauthenticate (accounts with neither a password nor a second factor). */
export const REAUTHENTICATE_PURPOSE = 'REAUTHENTICATE' satisfies ReservedReason

/** A sign-in by emailed link or code (features/users/email-sign-in.ts): the link is bound to the browser that asked. */
export const EMAIL_SIGN_IN_PURPOSE = 'EMAIL_SIGN_IN' satisfies ReservedReason

/** A reason POST /auth/verify-custom-mfa completes (the email change has its own route). */
export const isGenericCustomReason = (reason: string): boolean => reason !== CHANGE_EMAIL_REASON && isCustomReason(reason)
