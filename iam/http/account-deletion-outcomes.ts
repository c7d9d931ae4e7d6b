/**
 * The answers of the account deletion routes' failures (features/account-deletion): each code to
 * a status and a sentence the page can show as it is.
 */
import type { LinkRefused } from '../features/account-deletion/confirm-deletion'
import type { LastOwner } from '../features/account-deletion/request-deletion'
import { LINK_ERRORS } from '../features/mfa/links'
import { authFail } from './auth'
import type { FailureTable } from './route'

const link = (status: 400, error: string) => () => authFail(status, error)

/** A bad, used, expired or over-previewed link: 400 with the link engine's own words. */
export const LINK_REFUSED: FailureTable<LinkRefused> = {
  link_invalid: link(400, LINK_ERRORS.invalid),
  link_mismatch: link(400, LINK_ERRORS.mismatch),
  link_expired: link(400, 'This confirmation link has expired: ask for the deletion again from your account page'),
  link_used: link(400, LINK_ERRORS.used),
  link_previews: link(400, LINK_ERRORS.previews),
}

/** 409 naming the organizations the account still solely owns. */
export function lastOwner(failure: LastOwner): never {
  const names = failure.organizations.map((o) => o.name).join(', ')
  return authFail(409, `You are the last owner of ${names}: make another member an owner, or delete the organization, before deleting your account`, {
    code: 'last_owner',
    organizations: failure.organizations,
  })
}

export const UNDO_EXPIRED = 'The time to undo the deletion has passed: the account is erased, or is about to be. You can sign up again with the same address.'
