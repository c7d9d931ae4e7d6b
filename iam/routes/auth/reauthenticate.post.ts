import { defineEventHandler } from 'h3'
import { ROUTES } from '../../contract/routes'
import { reauthenticate, type ReauthProof, type ReauthResult } from '../../features/second-factors/step-up/reauthenticate'
import { authenticateAccount, readAccountBody } from '../../http/account-input'
import { authFail, RELOGIN_ERROR } from '../../http/auth'
import { throwTooManyRequests } from '../../http/rate-limit'
import { okEnvelope } from '../../http/respond'
import { failCodesLocked } from '../../http/second-factor'

/** The status and body of each refusal. */
function refuse(result: Extract<ReauthResult, { ok: false }>): never {
  switch (result.code) {
    case 'rate_limited':
      return throwTooManyRequests(result.decision)
    case 'locked':
      return failCodesLocked(result)
    case 'wrong_password':
      return authFail(401, 'The password is incorrect', { fields: { password: 'The password is incorrect' } })
    case 'invalid_code':
      return authFail(401, 'Invalid or expired code', { fields: { code: 'Invalid or expired code' } })
    case 'no_code_sent':
      return authFail(400, 'No code was mailed to this session; ask for one first', { fields: { code: 'Ask for a code first' } })
    case 'use_password':
      return authFail(400, 'Enter your password', { use: 'password', fields: { password: 'Enter your password' } })
    case 'use_code':
      return authFail(400, 'Enter a code from your authenticator app or a recovery code', { use: 'code', fields: { code: 'Enter the code' } })
    case 'mail_failed':
      return authFail(503, 'The code could not be mailed; try again later')
    case 'session_ended':
      return authFail(401, RELOGIN_ERROR)
  }
}

/**
 * POST /auth/reauthenticate (full authentication; `{ password }`, `{ code }` or `{}`): 200 when
 * the sign-in is proven again (features/second-factors/step-up/reauthenticate.ts), or 200 `{ mailed:
 * true }` when a code was mailed (accounts with neither a password nor a second factor, asked with
 * `{}`); 400; 401 wrong password or code; 429; 503 mail failure.
 */
export default defineEventHandler(async (event) => {
  const { ctx, user, actor } = await authenticateAccount(event)
  const body = await readAccountBody(event, ROUTES.reauthenticate, ['password', 'code'])
  if (body.password !== undefined && body.code !== undefined) return authFail(400, 'Send a password or a code, not both', { fields: { code: 'Send a password or a code, not both' } })
  const proof: ReauthProof = body.password !== undefined ? { password: body.password } : body.code !== undefined ? { code: body.code } : {}
  const result = await reauthenticate(ctx, { user, proof, actor })
  if (!result.ok) return refuse(result)
  // 200 too: a 202 of a signed-in route means an anomaly waits for the emailed code (FULL_AUTH)
  if (result.method === 'code_mailed') return okEnvelope({ mailed: true as const, sentTo: result.sentTo, expiresAt: result.expiresAt.toISOString() })
  return okEnvelope({ method: result.method, reauthenticatedUntil: result.until.toISOString() })
})
