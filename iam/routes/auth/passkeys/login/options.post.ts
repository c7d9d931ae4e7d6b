import { ROUTES } from '../../../../contract/routes'
import { startSignIn } from '../../../../features/second-factors/passkeys/sign-in-service'
import { okEnvelope } from '../../../../http/respond'
import { defineRoute, limit, signInGate } from '../../../../http/route'

/**
 * POST /auth/passkeys/login/options (no session; canary_id required): 200 `{ options }`, the same
 * for every visitor (no account named); 400 no canary; 403 banned device; 429 (rate_limiters.passkeyOptions
 * per IP). Not the login's per-IP budget: the sign-in page asks for options on every load so the
 * browser can offer passkeys in the address field's autofill, and a load is not a sign-in attempt;
 * the verify step, which is one, spends that budget.
 */
export default defineRoute(ROUTES.passkeyLoginOptions, [signInGate, limit('passkeyOptions', ({ ip }) => ({ ip }))], async ({ ctx, visitor }) =>
  okEnvelope({ options: await startSignIn(ctx, { visitorRowId: visitor!.id }) }),
)
