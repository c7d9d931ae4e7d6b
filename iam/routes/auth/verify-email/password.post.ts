import { ROUTES } from '../../../contract/routes'
import { verifyEmail, type VerifyProof } from '../../../features/account-actions/verify-email'
import { failAction } from '../../../http/account-action-outcomes'
import { authFail } from '../../../http/auth'
import { invalidLink } from '../../../http/link-submission'
import { okEnvelope, withWarnings } from '../../../http/respond'
import { body, defineRoute, device, limit, query } from '../../../http/route'

/** The account's password alone, or a new one with its confirmation: 400 for anything else. */
function proofOf(body: { password?: string; newPassword?: string; confirmedPassword?: string }): VerifyProof {
  if (body.password !== undefined && body.newPassword === undefined && body.confirmedPassword === undefined) return { password: body.password }
  if (body.password === undefined && body.newPassword !== undefined) {
    if (body.confirmedPassword === undefined) return authFail(400, 'validation_failed', 'Confirm the password', { fields: { confirmedPassword: 'Confirm the password' } })
    return { newPassword: body.newPassword, confirmedPassword: body.confirmedPassword }
  }
  return authFail(400, 'validation_failed', 'Enter your password, or choose a new one', { fields: { password: 'Enter your password, or choose a new one' } })
}

/**
 * POST /auth/verify-email/password (EMAIL_VERIFICATION link in the query; `{ password }` or
 * `{ newPassword, confirmedPassword }`): a verification link opened on another device than the one
 * that asked for it. 200 verified (with a new password: every session ended, `signedOut: true`);
 * 400 validation, bad link, mismatch or a rejected password; 401 wrong password (counted like a
 * failed sign-in); 403 banned device; 429; 503 breached-password check down.
 */
export default defineRoute(
  ROUTES.verifyEmailWithPassword,
  // passwords are never rendered: nothing else is free text here, so no markup check
  [limit('codes', ({ ip }) => ({ ip, on: 'verify' })), query(invalidLink), device, body({ markupCheck: false })],
  async ({ ctx, actor, query, body }) => {
    const proof = proofOf(body)
    const result = await verifyEmail(ctx, { params: query, actor, proof })
    if (!result.ok) return failAction(result)
    const message = result.signedOut
      ? 'Your email address is confirmed and your new password is set. Every session was signed out: sign in with the new password.'
      : 'Your email address is confirmed.'
    return withWarnings(okEnvelope({ message, signedOut: result.signedOut }), result.warnings)
  },
)
