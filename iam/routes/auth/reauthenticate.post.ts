import { ROUTES } from '../../contract/routes'
import { reauthenticate, type ReauthProof, type ReauthResult } from '../../features/second-factors/reauthenticate'
import { authFail, failRelogin } from '../../http/auth'
import { throwTooManyRequests } from '../../http/rate-limit'
import { okEnvelope } from '../../http/respond'
import { answerFailure, body, counted, defineRoute, type FailureTable } from '../../http/route'
import { failCodesLocked } from '../../http/second-factor'

/** The status and body of each refusal. */
const REFUSALS: FailureTable<Extract<ReauthResult, { ok: false }>> = {
  rate_limited: (r) => throwTooManyRequests(r.decision),
  locked: (r) => failCodesLocked(r),
  wrong_password: () => authFail(401, 'wrong_password', 'The password is incorrect', { fields: { password: 'The password is incorrect' } }),
  invalid_code: () => authFail(401, 'code_invalid', 'Invalid or expired code', { fields: { code: 'Invalid or expired code' } }),
  no_code_sent: () => authFail(400, 'no_code_sent', 'No code was mailed to this session; ask for one first', { fields: { code: 'Ask for a code first' } }),
  use_password: () => authFail(400, 'password_expected', 'Enter your password', { use: 'password', fields: { password: 'Enter your password' } }),
  use_code: () => authFail(400, 'code_expected', 'Enter a code from your authenticator app or a recovery code', { use: 'code', fields: { code: 'Enter the code' } }),
  mail_failed: () => authFail(503, 'mail_failed', 'The code could not be mailed; try again later'),
  session_ended: () => failRelogin(),
}

/**
 * POST /auth/reauthenticate (full authentication; `{ password }`, `{ code }` or `{}`): 200 when
 * the sign-in is proven again (features/second-factors/reauthenticate.ts), or 200 `{ mailed:
 * true }` when a code was mailed (accounts with neither a password nor a second factor, asked with
 * `{}`); 400; 401 wrong password or code; 429; 503 mail failure.
 */
export default defineRoute(
  ROUTES.reauthenticate,
  // the password is checked under the login limiters; a code is mailed under the emails and links limiters
  [body({ secret: ['password', 'code'] }), counted('loginIp'), counted('loginAccount'), counted('loginAccountDelay'), counted('emails'), counted('links')],
  async ({ ctx, user, actor, body }) => {
    if (body.password !== undefined && body.code !== undefined) return authFail(400, 'validation_failed', 'Send a password or a code, not both', { fields: { code: 'Send a password or a code, not both' } })
    const proof: ReauthProof = body.password !== undefined ? { password: body.password } : body.code !== undefined ? { code: body.code } : {}
    const result = await reauthenticate(ctx, { user, proof, actor })
    if (!result.ok) return answerFailure(REFUSALS, result)
    // 200 too: a 202 of a signed-in route means an anomaly waits for the emailed code (FULL_AUTH)
    if (result.method === 'code_mailed') return okEnvelope({ mailed: true as const, sentTo: result.sentTo, expiresAt: result.expiresAt.toISOString() })
    return okEnvelope({ method: result.method, reauthenticatedUntil: result.until.toISOString() })
  },
)
