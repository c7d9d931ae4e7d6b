/**
 * The answers of the account deletion routes' failures (features/account-deletion): each code to
 * a status and a sentence the page can show as it is.
 */
import type { ErrorCode } from '../contract/error-codes'
import type { LinkRefused } from '../features/account-deletion/confirm-deletion'
import type { LastOwner } from '../features/account-deletion/request-deletion'
import type { RestoreLinkResult } from '../features/account-deletion/restore-link'
import { LINK_ERRORS } from '../features/mfa/links'
import { authFail } from './auth'
import { throwTooManyRequests } from './rate-limit'
import type { FailureTable } from './route'

const link = (code: ErrorCode, error: string) => () => authFail(400, code, error)

/** A bad, used, expired or over-previewed link: 400 with the link engine's own words. */
export const LINK_REFUSED: FailureTable<LinkRefused> = {
  link_invalid: link('link_invalid', LINK_ERRORS.invalid),
  link_mismatch: link('link_mismatch', LINK_ERRORS.mismatch),
  link_expired: link('link_expired', 'This confirmation link has expired: ask for the deletion again from your account page'),
  link_used: link('link_used', LINK_ERRORS.used),
  link_previews: link('link_previews_exhausted', LINK_ERRORS.previews),
}

/** 409 naming the organizations the account still solely owns. */
export function lastOwner(failure: LastOwner): never {
  const names = failure.organizations.map((o) => o.name).join(', ')
  return authFail(409, 'last_owner', `You are the last owner of ${names}: make another member an owner, or delete the organization, before deleting your account`, {
    organizations: failure.organizations,
  })
}

export const UNDO_EXPIRED = 'The time to undo the deletion has passed: the account is erased, or is about to be. You can sign up again with the same address.'

/** 410: the undo window has passed. */
export const failUndoExpired = (): never => authFail(410, 'undo_expired', UNDO_EXPIRED)

/** "5 December 2026": the day of the erasure in words, in UTC (the IAM knows no time zone of the person). */
export function erasureDay(dueAt: Date): string {
  return dueAt.toLocaleDateString('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' })
}

/** POST /login's sentence for the right password of an account scheduled for deletion. */
export const deletionPendingError = (dueAt: Date) =>
  `This account is scheduled for deletion on ${erasureDay(dueAt)}. Ask for the restore link to keep it.`

const RESTORE_PROOF_REFUSED = 'This request for the restore link has expired or was already used. Sign in again to ask for it.'

/** POST /auth/delete-account/restore-link's failures. */
export const RESTORE_LINK_REFUSED: FailureTable<Extract<RestoreLinkResult, { ok: false }>> = {
  invalid_proof: () => authFail(400, 'restore_proof_invalid', RESTORE_PROOF_REFUSED),
  not_pending: () => authFail(409, 'deletion_not_pending', 'This account is no longer scheduled for deletion: sign in with your password.'),
  undo_expired: () => failUndoExpired(),
  mail_failed: () => authFail(503, 'mail_failed', 'The mail with the restore link could not be sent. Please try again in a moment.'),
  rate_limited: (failure) => throwTooManyRequests(failure.decision),
}
