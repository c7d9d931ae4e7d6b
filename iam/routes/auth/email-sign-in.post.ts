import { ROUTES } from '../../contract/routes'
import { EMAIL_SIGN_IN_BODY, requestEmailSignIn } from '../../features/users/email-sign-in-request'
import { authFail } from '../../http/auth'
import { botCheck } from '../../http/bot-check'
import { throwTooManyRequests } from '../../http/rate-limit'
import { body, counted, defineRoute, signInGate } from '../../http/route'
import { ssoRequiredFor } from '../../features/enterprise/sso-required'
import { failSsoRequired } from '../../http/sso-required'

/**
 * POST /auth/email-sign-in `{ email, method, rememberUser? }` (canary_id required: the link is bound
 * to this browser): 200 with one fixed body whether or not the address has an account; the lookup
 * and the mail happen after the response (features/users/email-sign-in-request.ts). 400 validation;
 * 403 a method the configuration does not offer, or an address whose domain requires its
 * organization's sign-in (`sso_required`); 429.
 */
export default defineRoute(
  ROUTES.emailSignIn,
  // per IP and per IP + address, counted by the feature; the per-address mail cap after the response
  [signInGate, botCheck, body(), counted('emailSignIn'), counted('mailbox')],
  async ({ ctx, ip, body, actor, visitor }) => {
    // before the limiters and the mail; the domain alone decides (http/sso-required.ts)
    const sso = await ssoRequiredFor(ctx.db, body.email)
    if (sso) return failSsoRequired(ctx, sso)
    const result = await requestEmailSignIn(ctx, {
      email: body.email,
      method: body.method,
      visitor: visitor!.visitor_id,
      remember: body.rememberUser === 'on',
      ipAddress: ip,
      requestLocale: actor.locale,
    })
    if (result.ok) return EMAIL_SIGN_IN_BODY
    if (result.code === 'disabled') return authFail(403, 'email_sign_in_disabled', 'This way of signing in is not offered')
    return throwTooManyRequests(result.decision)
  },
)
