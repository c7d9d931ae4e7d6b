/**
 * POST /api/auth/confirm/second-factor `{ reason, code }` -> IAM POST /auth/verify-custom-mfa/second-factor:
 * completes the custom MFA flow this session started with a TOTP or recovery code instead of the emailed code.
 */
import { SECOND_FACTOR_ROUTES } from '../../../../iam/contract/second-factor'
import { readInput } from '../../../utils/bff/input'
import { defineBffHandler, relay } from '../../../utils/bff/respond'
import { callAuthed } from '../../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const body = await readInput(event, SECOND_FACTOR_ROUTES.verifyCustomMfaSecondFactor.body)
  return relay(event, await callAuthed(event, { method: 'POST', path: '/auth/verify-custom-mfa/second-factor', body }))
})
