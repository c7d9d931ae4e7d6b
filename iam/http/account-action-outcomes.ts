/**
 * The HTTP side of the link-driven account actions (verify-mfa, custom MFA, email change and its
 * undo, email verification, password reset): the one mapper from a failure code to the status and
 * the `{ ok: false, date, error[, fields] }` body.
 */
import type { ActionFailure, ActionFailureCode, ActionLimited } from '../features/mfa/action-failures'
import { LINK_ERRORS } from '../features/mfa/links'
import { authFail } from './auth'
import { throwTooManyRequests } from './rate-limit'
import { failCodesLocked } from './second-factor'

type Answer = {
  status: 400 | 401 | 403 | 409 | 500 | 503
  /** the body's error; the failure's detail when absent */
  error?: string
  /** the field the error is also reported under */
  field?: string
  /** more members of the body, for the page to act on */
  extra?: Record<string, unknown>
}

const RELOGIN: Answer = { status: 401, error: 'Re-login is required' }

const ANSWERS: Record<ActionFailureCode, Answer> = {
  // a bad, expired, used or mismatched link is always 400 (spec: "400 body with error")
  link_invalid: { status: 400, error: LINK_ERRORS.invalid },
  link_mismatch: { status: 400, error: LINK_ERRORS.mismatch },
  link_expired: { status: 400, error: LINK_ERRORS.expired },
  link_used: { status: 400, error: LINK_ERRORS.used },
  link_previews: { status: 400, error: LINK_ERRORS.previews },
  // a wrong or expired code is 401, and so is a link that ran out of attempts
  code_bad: { status: 401, error: LINK_ERRORS.bad_code },
  code_attempts: { status: 401, error: LINK_ERRORS.attempts },
  relogin_required: RELOGIN,
  not_authenticated: { status: 401, error: 'Not authenticated' },
  email_invalid: { status: 400, field: 'newEmail' },
  email_in_use: { status: 400, error: 'Email already in use', field: 'newEmail' },
  email_unchanged: { status: 400, error: 'The new address is the current one', field: 'newEmail' },
  old_address_taken: { status: 409, error: 'The previous address now belongs to another account' },
  address_stale: { status: 400, error: 'This link is for an address that is no longer on the account' },
  already_verified: { status: 400, error: 'The email address is already verified' },
  passwords_mismatch: { status: 400, error: 'Passwords do not match', field: 'confirmedPassword' },
  password_rejected: { status: 400, field: 'password' },
  password_check_unavailable: { status: 503, field: 'password' },
  confirmation_mail_failed: { status: 500, error: 'Could not send the confirmation email; try again later' },
  flow_not_started: { status: 400, error: 'No confirmation is pending for this reason; start it first' },
  verification_mail_failed: { status: 503, error: 'The mail could not be sent, try again later' },
  password_required: {
    status: 403,
    error: 'This link was opened on another device than the one that asked for it: confirm with your password',
    extra: { passwordRequired: true },
  },
  wrong_password: { status: 401, error: 'The password is incorrect', field: 'password' },
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
  return authFail(answer.status, error, { ...(answer.field ? { fields: { [answer.field]: error } } : {}), ...answer.extra })
}
