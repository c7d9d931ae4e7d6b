import { ROUTES } from '../../contract/routes'
import { setFirstPassword, type SetPasswordResult } from '../../features/users/set-password'
import { authFail, failRelogin } from '../../http/auth'
import { okEnvelope, withWarnings } from '../../http/respond'
import { answerFailure, body, defineRoute, type FailureTable } from '../../http/route'

const MISMATCH = 'Passwords do not match'

/** The status and body of each refusal. */
const REFUSALS: FailureTable<Extract<SetPasswordResult, { ok: false }>> = {
  password_mismatch: () => authFail(400, 'passwords_mismatch', MISMATCH, { fields: { confirmedPassword: MISMATCH } }),
  weak_password: (r) => authFail(400, 'password_rejected', r.reason ?? 'Choose another password', { fields: { password: r.reason ?? 'Choose another password' } }),
  breach_check_unavailable: (r) => authFail(503, 'breach_check_unavailable', r.reason ?? 'The password could not be checked; try again later'),
  has_password: () => authFail(409, 'password_already_set', 'This account already has a password: change it with the current one'),
  session_ended: () => failRelogin(),
}

/**
 * POST /auth/set-password `{ password, confirmedPassword }` (full authentication, recent sign-in,
 * confirmed address): 200 `{ password: true }`; 400 validation, mismatch, policy, breach; 403
 * re-authentication required or address never confirmed; 409 the account has a password; 503
 * breach check down. Adding a password is adding a way in, so it takes the guards of adding a
 * passkey rather than the current password the account does not have.
 */
export default defineRoute(ROUTES.setPassword, [body({ secret: ['password', 'confirmedPassword'] })], async ({ ctx, user, actor, body }) => {
  const result = await setFirstPassword(ctx, { userId: user.userId, password: body.password, confirmedPassword: body.confirmedPassword, actor })
  if (!result.ok) return answerFailure(REFUSALS, result)
  return withWarnings(okEnvelope({ password: true as const }), result.warnings)
})
