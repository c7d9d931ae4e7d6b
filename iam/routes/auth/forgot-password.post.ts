import { ROUTES } from '../../contract/routes'
import { FORGOT_PASSWORD_BODY, requestPasswordReset } from '../../features/account-actions/password-reset'
import { throwTooManyRequests } from '../../http/rate-limit'
import { botCheck } from '../../http/bot-check'
import { body, counted, defineRoute, device } from '../../http/route'

/**
 * POST /auth/forgot-password (no session): 200 with one fixed body whether or not the address has
 * an account; the lookup and the mail happen after the response. 400 malformed body; 429.
 */
export default defineRoute(
  ROUTES.forgotPassword,
  // per IP and per IP + address, counted with the mail (features/account-actions/password-reset.ts)
  [device, botCheck, body(), counted('forgotPassword'), counted('mailbox')],
  async ({ ctx, ip, body, actor }) => {
    const result = await requestPasswordReset(ctx, { email: body.email, ipAddress: ip, requestLocale: actor.locale })
    if (!result.ok) return throwTooManyRequests(result.decision)
    return FORGOT_PASSWORD_BODY
  },
)
