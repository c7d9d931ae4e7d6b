import { ROUTES } from '../../contract/routes'
import { FORGOT_PASSWORD_BODY, requestPasswordReset } from '../../features/account-actions/password-reset'
import { throwTooManyRequests } from '../../http/rate-limit'
import { botCheck } from '../../http/bot-check'
import { body, counted, defineRoute, device } from '../../http/route'
import { ssoRequiredFor } from '../../features/enterprise/sso-required'
import { failSsoRequired } from '../../http/sso-required'

/**
 * POST /auth/forgot-password (no session): 200 with one fixed body whether or not the address has
 * an account; the lookup and the mail happen after the response. 400 malformed body; 403 an address
 * whose domain requires its organization's sign-in (`sso_required`); 429.
 */
export default defineRoute(
  ROUTES.forgotPassword,
  // per IP and per IP + address, counted with the mail (features/account-actions/password-reset.ts)
  [device, botCheck, body(), counted('forgotPassword'), counted('mailbox')],
  async ({ ctx, ip, body, actor }) => {
    // the organization's provider holds the password of such an address: no reset mail, no limiter
    // counted; the domain alone decides, so this says nothing about an account (http/sso-required.ts)
    const sso = await ssoRequiredFor(ctx.db, body.email)
    if (sso) return failSsoRequired(ctx, sso)
    const result = await requestPasswordReset(ctx, { email: body.email, ipAddress: ip, requestLocale: actor.locale, requestTimeZone: actor.timeZone })
    if (!result.ok) return throwTooManyRequests(result.decision)
    return FORGOT_PASSWORD_BODY
  },
)
