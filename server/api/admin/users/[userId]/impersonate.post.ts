/**
 * POST /api/admin/users/:userId/impersonate -> IAM POST /admin/users/:userId/impersonate: the
 * browser is signed in as the account on the administrator's behalf, the administrator's own
 * session kept aside for the end (server/utils/bff/impersonation.ts). 200 `{ data: { impersonation:
 * { userId, email, name, endsAt } } }`; the IAM's refusals as they come (403 administrator or
 * yourself, 403 `reauthenticate`, 404); 409 while this browser already acts for someone.
 */
import { getCookie } from 'h3'
import { currentCookie } from '../../../../utils/bff/cookies'
import { ADMIN_SESSION_COOKIE, endKeptAdminSession, keepAdminSession } from '../../../../utils/bff/impersonation'
import { USER_ID_ERROR } from '../../../../utils/bff/admin'
import { readIamParams } from '../../../../utils/bff/input'
import { bffFail, defineBffHandler, relay } from '../../../../utils/bff/respond'
import { callAuthedRoute } from '../../../../utils/bff/session'
import { readSessionState } from '../../../../utils/bff/session-state'

export default defineBffHandler(async (event) => {
  const params = readIamParams(event, 'adminUserImpersonate', USER_ID_ERROR)
  const state = await readSessionState(event)
  if (state.authenticated && state.impersonatedBy) {
    bffFail(409, { ok: false, error: 'You are already signed in on someone’s behalf. End that first, from the banner at the top of the page.', code: 'already_impersonating' })
  }
  // a session kept from an impersonation that ran out on its own (the administrator signed in again since): ended, not reused
  if (getCookie(event, ADMIN_SESSION_COOKIE)) await endKeptAdminSession(event)
  const res = await callAuthedRoute(event, 'adminUserImpersonate', { params })
  // the administrator's refresh token as the call left it (a refresh on the way rotated it): read before the swap
  const adminToken = currentCookie(event, 'session')
  const impersonation = (res.body as { impersonation?: unknown } | null)?.impersonation
  if (res.status !== 200 || !adminToken || !impersonation) return relay(event, res)
  relay(event, res)
  keepAdminSession(event, adminToken, state.authenticated ? state.email : null)
  return { ok: true, date: new Date().toISOString(), data: { impersonation } }
})
