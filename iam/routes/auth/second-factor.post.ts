import { failSuspended } from '../../http/suspended'
import { ROUTES } from '../../contract/routes'
import { completeSignIn } from '../../features/second-factors/sign-in-step'
import { authFail, sendTokens } from '../../http/auth'
import { body, defineRoute, limit, signInGate } from '../../http/route'
import { failCodesLocked } from '../../http/second-factor'
import { signInDevice } from '../../http/sign-in'

/**
 * POST /auth/second-factor (no session; canary_id required, `{ challenge, code }`): answers like
 * POST /login. 200 tokens; 400 validation; 401 wrong code, or `restart: true` when the challenge is
 * unknown, expired, used, out of attempts or issued to another device; 403 banned; 429 (the
 * login's per-IP budget, or the account's code entry locked after too many wrong codes).
 */
export default defineRoute(ROUTES.secondFactor, [signInGate, body(), limit('loginIp', ({ ip }) => ({ ip }))], async ({ event, ctx, visitor, body }) => {
  const result = await completeSignIn(ctx, { challenge: body.challenge, code: body.code, ...signInDevice(event, visitor!) })
  if (result.ok) return sendTokens(event, ctx, result.pair, 200)
  if (result.code === 'banned') return failSuspended(result.suspension)
  if (result.code === 'invalid_code') return authFail(401, 'code_invalid', 'Invalid code')
  if (result.code === 'locked') return failCodesLocked(result)
  return authFail(401, 'sign_in_expired', 'This sign-in step has ended; sign in again', { restart: true })
})
