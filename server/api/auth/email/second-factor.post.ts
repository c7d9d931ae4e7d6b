/**
 * POST /api/auth/email/second-factor `{ newEmail, code }` -> IAM POST /update/email/second-factor:
 * the email change this session started, proven with a TOTP or recovery code instead of the emailed code.
 */
import { readIamBody } from '../../../utils/bff/input'
import { defineBffHandler, relay } from '../../../utils/bff/respond'
import { callAuthedRoute } from '../../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const { body } = await readIamBody(event, 'updateEmailSecondFactor')
  return relay(event, await callAuthedRoute(event, 'updateEmailSecondFactor', { body }))
})
