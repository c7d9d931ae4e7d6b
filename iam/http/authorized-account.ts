/**
 * The gateway authorization routes (GET /secret/data, GET /secret/accesstoken/metadata): full
 * authentication, then the account and device the session names (read by full authentication). 401 `Not authenticated` and 404
 * `Not found` carry the spec's `{ authorized: false, reason }` body.
 */
import type { H3Event } from 'h3'
import { useIam, type IamContext } from '../context'
import type { Visitor } from '../db/schema'
import type { AuthAccount } from '../features/sessions/auth-state-repo'
import { fullAuthentication, type RequestUser } from './auth'
import { httpFail } from './respond'

export interface AuthorizedAccount {
  ctx: IamContext
  user: RequestUser
  account: AuthAccount
  visitor: Visitor
}

export async function requireAuthorizedAccount(event: H3Event): Promise<AuthorizedAccount> {
  const ctx = useIam()
  const user = await fullAuthentication(event)
  if (!user) return httpFail(401, { authorized: false, reason: 'Not authenticated' })
  // read by full authentication in its one statement: the account of the session, the device of the request
  const { account, visitor } = event.context
  if (!account || !visitor || account.id !== user.userId || visitor.id !== user.visitorRowId) {
    return httpFail(404, { authorized: false, reason: 'Not found' })
  }
  return { ctx, user, account, visitor }
}
