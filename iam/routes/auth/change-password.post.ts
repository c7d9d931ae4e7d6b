import { ROUTES } from '../../contract/routes'
import { changePassword, type ChangePasswordResult } from '../../features/users/change-password'
import { authFail, failRelogin, sendTokens } from '../../http/auth'
import { throwTooManyRequests } from '../../http/rate-limit'
import { withWarnings } from '../../http/respond'
import { answerFailure, body, counted, defineRoute, type FailureTable } from '../../http/route'

const MISMATCH = 'Passwords do not match'

/** The status and body of each refusal. */
const REFUSALS: FailureTable<Exclude<ChangePasswordResult, { ok: true }>> = {
  rate_limited: (r) => throwTooManyRequests(r.limit),
  password_mismatch: () => authFail(400, 'passwords_mismatch', MISMATCH, { fields: { confirmedPassword: MISMATCH } }),
  no_password: () => authFail(400, 'no_password', 'This account has no password: it signs in with a provider. Use "Forgot password" to set one.'),
  wrong_password: () => authFail(401, 'wrong_password', 'The current password is incorrect', { fields: { currentPassword: 'The current password is incorrect' } }),
  weak_password: (r) => authFail(400, 'password_rejected', r.reason ?? 'Choose another password', { fields: { password: r.reason ?? 'Choose another password' } }),
  breach_check_unavailable: (r) => authFail(503, 'breach_check_unavailable', r.reason ?? 'The password could not be checked; try again later'),
  changed_meanwhile: () => authFail(409, 'password_changed_meanwhile', 'The password was changed meanwhile; sign in again with the new password'),
  session_ended: () => failRelogin(),
}

/**
 * POST /auth/change-password `{ currentPassword, password, confirmedPassword }` (full
 * authentication): 200 a new token pair like POST /login, every other session ended, a notice
 * mailed; 400 validation, mismatch, policy, breach, no password; 401 wrong current password
 * (counted by the login limiters); 409 changed meanwhile; 429; 503 breach check down.
 */
export default defineRoute(
  ROUTES.changePassword,
  // the current password is checked under the login limiters (features/users/change-password.ts)
  [body({ secret: ['currentPassword', 'password', 'confirmedPassword'] }), counted('loginIp'), counted('loginAccount'), counted('loginAccountDelay')],
  async ({ event, ctx, user, actor, body }) => {
    const result = await changePassword(ctx, {
      userId: user.userId,
      sessionId: user.sessionId,
      visitor: { id: user.visitorRowId },
      currentPassword: body.currentPassword,
      password: body.password,
      confirmedPassword: body.confirmedPassword,
      actor,
    })
    if (!result.ok) return answerFailure(REFUSALS, result)
    return withWarnings(sendTokens(event, ctx, result.pair, 200), result.warnings)
  },
)
