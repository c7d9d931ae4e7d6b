import { defineEventHandler } from 'h3'
import { SECOND_FACTOR_ROUTES } from '../../../contract/second-factor'
import { verifyCustomMfa } from '../../../features/second-factors/step-up/custom-mfa'
import { failAction } from '../../../http/account-action-outcomes'
import { sendTokens } from '../../../http/auth'
import { readFactorRequest } from '../../../http/second-factor'

/**
 * POST /auth/verify-custom-mfa/second-factor (full authentication, `{ reason, code }`): completes
 * the flow this session started for `reason` with a TOTP or recovery code instead of the emailed
 * code. 200 new tokens; 400 validation or no pending flow; 401 wrong code; 403; 429.
 */
export default defineEventHandler(async (event) => {
  const { ctx, user, data, actor } = await readFactorRequest(event, SECOND_FACTOR_ROUTES.verifyCustomMfaSecondFactor)
  const result = await verifyCustomMfa(ctx, { proof: { kind: 'second_factor', reason: data.reason, code: data.code }, user, actor })
  if (!result.ok) return failAction(result)
  return sendTokens(event, ctx, result.pair, 200)
})
