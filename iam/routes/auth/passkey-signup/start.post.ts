import { ROUTES } from '../../../contract/routes'
import { PASSKEY_SIGNUP_BODY, startPasskeySignup } from '../../../features/users/passkey-signup'
import { ssoRequiredFor } from '../../../features/enterprise/sso-required'
import { authFail } from '../../../http/auth'
import { botCheck } from '../../../http/bot-check'
import { requestLocale } from '../../../http/link-submission'
import { body, counted, defineRoute, limit, markup, signInGate } from '../../../http/route'
import { failSsoRequired } from '../../../http/sso-required'

/**
 * POST /auth/passkey-signup/start `{ email, name?, termsConsent, botProof? }` (canary_id required):
 * 200 with one fixed body whether or not the address has an account; the lookup and the mail
 * happen after the response (features/users/passkey-signup.ts). Closed to the same addresses as
 * POST /signup, with the same answer: 403 `sso_required` for a domain whose organization requires
 * its own sign-in. 400 validation (an address that fails the checks, as POST /signup); 429.
 */
export default defineRoute(
  ROUTES.passkeySignupStart,
  // the steps of POST /signup, in its order: the per-IP sign-up budget is the same budget
  [signInGate, markup(), botCheck, limit('signup', ({ ip }) => ({ ip })), body({ markupCheck: false }), counted('mailbox')],
  async ({ event, ctx, body }) => {
    // first: the domain alone decides (http/sso-required.ts)
    const sso = await ssoRequiredFor(ctx.db, body.email)
    if (sso) return failSsoRequired(ctx, sso)
    const result = await startPasskeySignup(ctx, { email: body.email, name: body.name, requestLocale: requestLocale(event) })
    if (!result.ok) return authFail(400, 'validation_failed', 'Validation failed', { fields: { email: result.reason } })
    return PASSKEY_SIGNUP_BODY
  },
)
