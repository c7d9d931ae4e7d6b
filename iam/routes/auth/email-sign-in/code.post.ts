import { ROUTES } from '../../../contract/routes'
import { signInWithEmailCode } from '../../../features/users/email-sign-in'
import { answerEmailSignIn } from '../../../http/email-sign-in'
import { body, defineRoute, limit, signInGate } from '../../../http/route'
import { signInDevice } from '../../../http/sign-in'
import { ssoRequiredFor } from '../../../features/enterprise/sso-required'
import { failSsoRequired } from '../../../http/sso-required'

/**
 * POST /auth/email-sign-in/code `{ email, code }` (canary_id required): signs in with the emailed
 * code on any device. 200 tokens, or a second-factor challenge; 400 validation; 401 a wrong code
 * (one body whether or not a mail waits for the address); 403 banned, or an address whose domain
 * requires its organization's sign-in (`sso_required`); 429 the login's per-IP
 * budget, or the address's code entry locked after too many wrong codes.
 */
export default defineRoute(ROUTES.emailSignInCode, [signInGate, body(), limit('loginIp', ({ ip }) => ({ ip }))], async ({ event, ctx, visitor, body }) => {
  // before the code budget is spent; the domain alone decides (http/sso-required.ts)
  const sso = await ssoRequiredFor(ctx.db, body.email)
  if (sso) return failSsoRequired(ctx, sso)
  const result = await signInWithEmailCode(ctx, { email: body.email, code: body.code, ...signInDevice(event, visitor!) })
  return answerEmailSignIn(event, ctx, result)
})
