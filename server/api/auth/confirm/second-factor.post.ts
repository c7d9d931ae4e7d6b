/**
 * POST /api/auth/confirm/second-factor `{ reason, code }` -> IAM POST /auth/verify-custom-mfa/second-factor:
 * completes the custom MFA flow this session started with a TOTP or recovery code instead of the emailed code.
 */
import { readIamBody } from '../../../utils/bff/input'
import { defineBffHandler, relay } from '../../../utils/bff/respond'
import { callAuthedRoute } from '../../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const { body } = await readIamBody(event, 'verifyCustomMfaSecondFactor')
  return relay(event, await callAuthedRoute(event, 'verifyCustomMfaSecondFactor', { body }))
})
