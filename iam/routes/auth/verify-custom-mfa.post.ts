import { defineEventHandler } from 'h3'
import { ROUTES } from '../../contract/routes'
import { verifyCustomMfa } from '../../features/second-factors/step-up/custom-mfa'
import { sendTokens } from '../../http/auth'
import { readLinkSubmission } from '../../http/link-submission'
import { failAction } from '../../http/account-action-outcomes'

/**
 * POST /auth/verify-custom-mfa (full authentication, link in the query, `{ code }`): 200 action
 * confirmed, new tokens; 400 malformed or purpose/subject mismatch; 401 wrong or expired code;
 * 403 banned or XSS; 429; 500.
 */
export default defineEventHandler(async (event) => {
  const { ctx, user, params, data, actor } = await readLinkSubmission(event, ROUTES.verifyCustomMfa)
  const result = await verifyCustomMfa(ctx, { proof: { kind: 'emailed', params, code: data.code }, user, actor })
  if (!result.ok) return failAction(result)
  return sendTokens(event, ctx, result.pair, 200)
})
