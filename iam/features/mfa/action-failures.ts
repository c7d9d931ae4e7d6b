/**
 * The failures of the link-driven account actions as a closed union of codes. The routes' one
 * mapper (http/account-action-outcomes.ts) turns a code into the status and the
 * `{ ok: false, date, error[, fields] }` body; nothing here knows HTTP.
 */
import type { LimitDecision } from '../rate-limits/limiter'
import type { CodeCheck, LinkFailure } from './links'

export type ActionFailureCode =
  /** a bad, expired, used or mismatched link, or one out of previews */
  | `link_${LinkFailure | 'previews'}`
  /** a wrong or expired code, or a link out of attempts */
  | 'code_bad'
  | 'code_attempts'
  /** the session the action belongs to is gone */
  | 'relogin_required'
  | 'not_authenticated'
  /** the new address fails the checks (`detail` says why) */
  | 'email_invalid'
  | 'email_in_use'
  | 'email_unchanged'
  /** a resend asked for, with no email change waiting */
  | 'email_change_not_pending'
  /** undoing a change: the old address belongs to another account by now */
  | 'old_address_taken'
  /** confirming an email change: another account took the new address since it was asked for */
  | 'new_address_taken'
  /** verifying: the link is for an address the account no longer has */
  | 'address_stale'
  | 'already_verified'
  | 'passwords_mismatch'
  /** the new password fails the policy or the breach check (`detail` says why) */
  | 'password_rejected'
  /** the breach check could not answer (`detail` says so) */
  | 'password_check_unavailable'
  | 'confirmation_mail_failed'
  /** a second factor in place of the emailed code, for a flow this session never started */
  | 'flow_not_started'
  | 'verification_mail_failed'
  /** a verification link opened on another device than the one that asked: the account's password or a new one is needed */
  | 'password_required'
  /** the account's password, given as a proof, is wrong */
  | 'wrong_password'

export interface ActionFailure {
  ok: false
  code: ActionFailureCode
  /** the human reason for codes whose text comes from a check */
  detail?: string
}

/** A limiter refused the action before any work. */
/** `codeEntryLocked`: the account's second-factor code entry is locked (second-factors/code-budget.ts), not a limiter's window */
export type ActionLimited = { ok: false; code: 'rate_limited'; decision: Extract<LimitDecision, { ok: false }>; codeEntryLocked?: true }

export const fail = (code: ActionFailureCode, detail?: string): ActionFailure => (detail === undefined ? { ok: false, code } : { ok: false, code, detail })

export const linkFailure = (reason: LinkFailure | 'previews'): ActionFailure => fail(`link_${reason}`)

/** A link used meanwhile reads as used; a wrong code or one out of attempts as a code failure. */
export function codeFailure(check: Exclude<CodeCheck, { ok: true }>): ActionFailure {
  if (check.code === 'used') return fail('link_used')
  return fail(check.code === 'bad_code' ? 'code_bad' : 'code_attempts')
}
