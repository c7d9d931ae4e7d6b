import { defineEventHandler } from 'h3'
import { SECOND_FACTOR_ROUTES } from '../../../contract/second-factor'
import { changeEmail } from '../../../features/account-actions/email-change'
import { CHANGE_EMAIL_REASON } from '../../../features/mfa/purposes'
import { failAction } from '../../../http/account-action-outcomes'
import { sendTokens } from '../../../http/auth'
import { readFactorRequest } from '../../../http/second-factor'

/**
 * POST /update/email/second-factor (full authentication, `{ newEmail, code }`): the email change
 * this session started (POST /custom/mfa/change_email) proven with a TOTP or recovery code instead
 * of the emailed code; otherwise as POST /update/email.
 */
export default defineEventHandler(async (event) => {
  const { ctx, user, data, actor } = await readFactorRequest(event, SECOND_FACTOR_ROUTES.updateEmailSecondFactor)
  const proof = { kind: 'second_factor' as const, reason: CHANGE_EMAIL_REASON, code: data.code }
  const signInProofAt = event.context.signInProofAt ?? ctx.now()
  const result = await changeEmail(ctx, { proof, newEmail: data.newEmail, user, actor, signInProofAt })
  if (!result.ok) return failAction(result)
  return sendTokens(event, ctx, result.pair, 200)
})
