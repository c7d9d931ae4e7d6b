import { defineEventHandler } from 'h3'
import { ROUTES } from '../../contract/routes'
import { changePassword, type ChangePasswordResult } from '../../features/users/change-password'
import { authFail, RELOGIN_ERROR, sendTokens } from '../../http/auth'
import { authenticateAccount, readAccountBody } from '../../http/account-input'
import { throwTooManyRequests } from '../../http/rate-limit'
import { withWarnings } from '../../http/respond'

const MISMATCH = 'Passwords do not match'

/** The status and body of each refusal. */
function refuse(result: Exclude<ChangePasswordResult, { ok: true }>): never {
  switch (result.code) {
    case 'rate_limited':
      return throwTooManyRequests(result.limit)
    case 'password_mismatch':
      return authFail(400, MISMATCH, { fields: { confirmedPassword: MISMATCH } })
    case 'no_password':
      return authFail(400, 'This account has no password: it signs in with a provider. Use "Forgot password" to set one.')
    case 'wrong_password':
      return authFail(401, 'The current password is incorrect', { fields: { currentPassword: 'The current password is incorrect' } })
    case 'weak_password':
      return authFail(400, result.reason ?? 'Choose another password', { fields: { password: result.reason ?? 'Choose another password' } })
    case 'breach_check_unavailable':
      return authFail(503, result.reason ?? 'The password could not be checked; try again later')
    case 'changed_meanwhile':
      return authFail(409, 'The password was changed meanwhile; sign in again with the new password')
    case 'session_ended':
      return authFail(401, RELOGIN_ERROR)
  }
}

/**
 * POST /auth/change-password `{ currentPassword, password, confirmedPassword }` (full
 * authentication): 200 a new token pair like POST /login, every other session ended, a notice
 * mailed; 400 validation, mismatch, policy, breach, no password; 401 wrong current password
 * (counted by the login limiters); 409 changed meanwhile; 429; 503 breach check down.
 */
export default defineEventHandler(async (event) => {
  const { ctx, user, actor } = await authenticateAccount(event)
  const body = await readAccountBody(event, ROUTES.changePassword, ['currentPassword', 'password', 'confirmedPassword'])
  const result = await changePassword(ctx, {
    userId: user.userId,
    sessionId: user.sessionId,
    visitor: { id: user.visitorRowId },
    currentPassword: body.currentPassword,
    password: body.password,
    confirmedPassword: body.confirmedPassword,
    actor,
  })
  if (!result.ok) return refuse(result)
  return withWarnings(sendTokens(event, ctx, result.pair, 200), result.warnings)
})
