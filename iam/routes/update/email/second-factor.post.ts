import { ROUTES } from '../../../contract/routes'
import { changeEmail } from '../../../features/account-actions/email-change'
import { CHANGE_EMAIL_REASON } from '../../../features/mfa/purposes'
import { failAction } from '../../../http/account-action-outcomes'
import { sendTokens } from '../../../http/auth'
import { body, counted, defineRoute, limit } from '../../../http/route'

/**
 * POST /update/email/second-factor (full authentication, `{ newEmail, code }`): the email change
 * this session started (POST /custom/mfa/change_email) proven with a TOTP or recovery code instead
 * of the emailed code; otherwise as POST /update/email.
 */
export default defineRoute(
  ROUTES.updateEmailSecondFactor,
  [body(), limit('codes', ({ ip }) => ({ ip, on: 'ip' })), counted('mailbox')],
  async ({ event, ctx, user, actor, body }) => {
    const proof = { kind: 'second_factor' as const, reason: CHANGE_EMAIL_REASON, code: body.code }
    const signInProofAt = event.context.signInProofAt ?? ctx.now()
    const result = await changeEmail(ctx, { proof, newEmail: body.newEmail, user, actor, signInProofAt })
    if (!result.ok) return failAction(result)
    return sendTokens(event, ctx, result.pair, 200)
  },
)
