import { failSuspended } from '../../../../http/suspended'
import { ROUTES } from '../../../../contract/routes'
import { finishSignIn } from '../../../../features/second-factors/passkeys/sign-in-service'
import { authFail, sendTokens } from '../../../../http/auth'
import { body, defineRoute, limit, signInGate } from '../../../../http/route'
import { signInDevice } from '../../../../http/sign-in'

/** One body for every refusal: an unknown passkey reads like a bad signature or a spent challenge. */
const INVALID_PASSKEY = 'The passkey could not be verified; try again'

/**
 * POST /auth/passkeys/login/verify (no session; canary_id required, `{ credential, rememberUser? }`):
 * answers like POST /login. 200 tokens; 400 validation or no canary; 401 the assertion does not
 * verify; 403 XSS / banned device / suspended account; 429 (the login's per-IP budget).
 */
export default defineRoute(ROUTES.passkeyLoginVerify, [signInGate, body(), limit('loginIp', ({ ip }) => ({ ip }))], async ({ event, ctx, visitor, body }) => {
  const result = await finishSignIn(ctx, { credential: body.credential, remember: body.rememberUser === 'on', ...signInDevice(event, visitor!) })
  if (result.ok) return sendTokens(event, ctx, result.pair, 200)
  if (result.code === 'banned') return failSuspended(result.suspension)
  return authFail(401, 'invalid_credentials', INVALID_PASSKEY)
})
