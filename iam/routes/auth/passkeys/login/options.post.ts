import { defineEventHandler } from 'h3'
import { useIam } from '../../../../context'
import { startSignIn } from '../../../../features/second-factors/passkeys/sign-in-service'
import { requireSignInDevice } from '../../../../http/sign-in'
import { enforceRateLimit } from '../../../../http/rate-limit'
import { getClientIp } from '../../../../http/request'
import { okEnvelope } from '../../../../http/respond'

/**
 * POST /auth/passkeys/login/options (no session; canary_id required): 200 `{ options }`, the same
 * for every visitor (no account named); 400 no canary; 403 banned device; 429 (rate_limiters.passkeyOptions
 * per IP). Not the login's per-IP budget: the sign-in page asks for options on every load so the
 * browser can offer passkeys in the address field's autofill, and a load is not a sign-in attempt;
 * the verify step, which is one, spends that budget.
 */
export default defineEventHandler(async (event) => {
  const ctx = useIam()
  const visitor = await requireSignInDevice(event)
  await enforceRateLimit(ctx, 'passkeyOptions', { ip: getClientIp(event) })
  return okEnvelope({ options: await startSignIn(ctx, { visitorRowId: visitor.id }) })
})
