import { defineEventHandler } from 'h3'
import { ROUTES } from '../../contract/routes'
import { changeEmail } from '../../features/account-actions/email-change'
import { sendTokens } from '../../http/auth'
import { readLinkSubmission } from '../../http/link-submission'
import { failAction } from '../../http/account-action-outcomes'

/**
 * POST /update/email (full authentication, change_email link in the query, `{ code, newEmail }`):
 * 200 updated, new tokens for this session, every other session revoked; 400 validation, bad link
 * or address in use; 401 wrong or expired code; 403 banned or XSS; 429; 500.
 */
export default defineEventHandler(async (event) => {
  const { ctx, user, params, data, actor } = await readLinkSubmission(event, ROUTES.updateEmail)
  const signInProofAt = event.context.signInProofAt ?? ctx.now()
  const result = await changeEmail(ctx, { proof: { kind: 'emailed', params, code: data.code }, newEmail: data.newEmail, user, actor, signInProofAt })
  if (!result.ok) return failAction(result)
  return sendTokens(event, ctx, result.pair, 200)
})
