import { defineEventHandler } from 'h3'
import { useIam } from '../../../../context'
import { startSignIn } from '../../../../features/passkeys/sign-in-service'
import { requireSignInDevice } from '../../../../http/sign-in'
import { enforceRateLimit } from '../../../../http/rate-limit'
import { getClientIp } from '../../../../http/request'
import { okEnvelope } from '../../../../http/respond'

/**
 * POST /auth/passkeys/login/options (no session; canary_id required): 200 `{ options }`, the same
 * for every visitor (no account named); 400 no canary; 403 banned device; 429 (the login's per-IP
 * budget: each step of a passkey sign-in counts like a login attempt).
 */
export default defineEventHandler(async (event) => {
  const ctx = useIam()
  const visitor = await requireSignInDevice(event)
  await enforceRateLimit(ctx, 'loginIp', { ip: getClientIp(event) })
  return okEnvelope({ options: await startSignIn(ctx, { visitorRowId: visitor.id }) })
})
