/**
 * The HTTP side of the link-driven account actions (verify-mfa, custom MFA, email change and its
 * undo, email verification, password reset): the one mapper from a failure code to the status and
 * the `{ ok: false, date, error[, fields] }` body.
 */
import type { ErrorCode } from '../contract/error-codes'
import type { ActionFailure, ActionFailureCode, ActionLimited } from '../features/mfa/action-failures'
import { LINK_ERRORS } from '../features/mfa/links'
import { authFail } from './auth'
import { throwTooManyRequests } from './rate-limit'
import { failCodesLocked } from './second-factor'

type Answer = {
  status: 400 | 401 | 403 | 409 | 500 | 503
  /** the wire code (contract/error-codes.ts) */
  code: ErrorCode
  /** the body's error; the failure's detail when absent */
  error?: string
  /** the field the error is also reported under */
  field?: string
  /** more members of the body, for the page to act on */
  extra?: Record<string, unknown>
}

const RELOGIN: Answer = { status: 401, code: 'relogin_required', error: 'Re-login is required' }

const ANSWERS: Record<ActionFailureCode, Answer> = {
  // a bad, expired, used or mismatched link is always 400 `{ error, code }`: the answer does not
  // tell which, so a guessed link learns nothing
  link_invalid: { status: 400, code: 'link_invalid', error: LINK_ERRORS.invalid },
  link_mismatch: { status: 400, code: 'link_mismatch', error: LINK_ERRORS.mismatch },
  link_expired: { status: 400, code: 'link_expired', error: LINK_ERRORS.expired },
  link_used: { status: 400, code: 'link_used', error: LINK_ERRORS.used },
  link_previews: { status: 400, code: 'link_previews_exhausted', error: LINK_ERRORS.previews },
  // a wrong or expired code is 401, and so is a link that ran out of attempts
  code_bad: { status: 401, code: 'code_invalid', error: LINK_ERRORS.bad_code },
  code_attempts: { status: 401, code: 'code_attempts_exhausted', error: LINK_ERRORS.attempts },
  relogin_required: RELOGIN,
  // the session's account is gone: to the client, the same as any session that cannot go on
  not_authenticated: { status: 401, code: 'relogin_required', error: 'Not authenticated' },
  email_invalid: { status: 400, code: 'email_invalid', field: 'newEmail' },
  email_in_use: { status: 400, code: 'email_taken', error: 'Email already in use', field: 'newEmail' },
  email_unchanged: { status: 400, code: 'email_unchanged', error: 'The new address is the current one', field: 'newEmail' },
  email_change_not_pending: { status: 400, code: 'email_change_not_pending', error: 'No email change is waiting for its confirmation' },
  old_address_taken: { status: 409, code: 'email_taken', error: 'The previous address now belongs to another account' },
  new_address_taken: { status: 409, code: 'email_taken', error: 'The new address now belongs to another account: ask for the change again with another address' },
  address_stale: { status: 400, code: 'address_changed', error: 'This link is for an address that is no longer on the account' },
  already_verified: { status: 400, code: 'email_already_verified', error: 'The email address is already verified' },
  passwords_mismatch: { status: 400, code: 'passwords_mismatch', error: 'Passwords do not match', field: 'confirmedPassword' },
  password_rejected: { status: 400, code: 'password_rejected', field: 'password' },
  password_check_unavailable: { status: 503, code: 'breach_check_unavailable', field: 'password' },
  confirmation_mail_failed: { status: 500, code: 'mail_failed', error: 'Could not send the confirmation email; try again later' },
  flow_not_started: { status: 400, code: 'flow_not_started', error: 'No confirmation is pending for this reason; start it first' },
  verification_mail_failed: { status: 503, code: 'mail_failed', error: 'The mail could not be sent, try again later' },
  password_required: {
    status: 403,
    code: 'password_required',
    error: 'This link was opened on another device than the one that asked for it: confirm with your password',
    extra: { passwordRequired: true },
  },
  wrong_password: { status: 401, code: 'wrong_password', error: 'The password is incorrect', field: 'password' },
}

/**
 * Ends the request with the failure's status and body (429 with Retry-After for a limiter's refusal;
 * a locked code entry also says so, as the sign-in step does, so the page can tell the person why).
 */
export function failAction(failure: ActionFailure | ActionLimited): never {
  if (failure.code === 'rate_limited' && failure.codeEntryLocked) return failCodesLocked(failure.decision)
  if (failure.code === 'rate_limited') return throwTooManyRequests(failure.decision)
  const answer = ANSWERS[failure.code]
  const error = answer.error ?? failure.detail ?? 'Bad Request'
  return authFail(answer.status, answer.code, error, { ...(answer.field ? { fields: { [answer.field]: error } } : {}), ...answer.extra })
}
