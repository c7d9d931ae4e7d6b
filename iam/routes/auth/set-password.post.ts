import { defineEventHandler } from 'h3'
import { ROUTES } from '../../contract/routes'
import { setFirstPassword, type SetPasswordResult } from '../../features/users/set-password'
import { authFail, RELOGIN_ERROR } from '../../http/auth'
import { authenticateAccount, readAccountBody } from '../../http/account-input'
import { requireRecentSignIn, requireVerifiedEmail } from '../../http/reauthenticate'
import { okEnvelope, withWarnings } from '../../http/respond'

const MISMATCH = 'Passwords do not match'

function refuse(result: Extract<SetPasswordResult, { ok: false }>): never {
  switch (result.code) {
    case 'password_mismatch':
      return authFail(400, MISMATCH, { fields: { confirmedPassword: MISMATCH } })
    case 'weak_password':
      return authFail(400, result.reason ?? 'Choose another password', { fields: { password: result.reason ?? 'Choose another password' } })
    case 'breach_check_unavailable':
      return authFail(503, result.reason ?? 'The password could not be checked; try again later')
    case 'has_password':
      return authFail(409, 'This account already has a password: change it with the current one')
    case 'session_ended':
      return authFail(401, RELOGIN_ERROR)
  }
}

/**
 * POST /auth/set-password `{ password, confirmedPassword }` (full authentication, recent sign-in,
 * confirmed address): 200 `{ password: true }`; 400 validation, mismatch, policy, breach; 403
 * re-authentication required or address never confirmed; 409 the account has a password; 503
 * breach check down. Adding a password is adding a way in, so it takes the guards of adding a
 * passkey rather than the current password the account does not have.
 */
export default defineEventHandler(async (event) => {
  const { ctx, user, actor } = await authenticateAccount(event)
  requireVerifiedEmail(event)
  requireRecentSignIn(event)
  const body = await readAccountBody(event, ROUTES.setPassword, ['password', 'confirmedPassword'])
  const result = await setFirstPassword(ctx, { userId: user.userId, password: body.password, confirmedPassword: body.confirmedPassword, actor })
  if (!result.ok) return refuse(result)
  return withWarnings(okEnvelope({ password: true as const }), result.warnings)
})
