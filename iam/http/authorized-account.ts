/**
 * The gateway authorization routes (GET /secret/data, GET /secret/accesstoken/metadata): after full
 * authentication (their route units'), the account and device the session names, read by full
 * authentication in its one statement. 404 `Not found` carries the documented `{ authorized: false, reason }` body (the route's contract entry).
 */
import type { H3Event } from 'h3'
import type { IamContext } from '../context'
import type { Visitor } from '../db/schema'
import type { AuthAccount } from '../features/sessions/auth-state-repo'
import type { RequestUser } from './auth'
import { httpFail } from './respond'

export interface AuthorizedAccount {
  ctx: IamContext
  user: RequestUser
  account: AuthAccount
  visitor: Visitor
}

/** The account and device of an authenticated request; 404 when either is not the session's. */
export function authorizedAccount(req: { event: H3Event; ctx: IamContext; user: RequestUser }): AuthorizedAccount {
  const { account, visitor } = req.event.context
  if (!account || !visitor || account.id !== req.user.userId || visitor.id !== req.user.visitorRowId) {
    return httpFail(404, { authorized: false, reason: 'Not found', code: 'account_not_found' })
  }
  return { ctx: req.ctx, user: req.user, account, visitor }
}
