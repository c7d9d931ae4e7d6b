/**
 * POST /api/auth/email/second-factor `{ newEmail, code }` -> IAM POST /update/email/second-factor:
 * the email change this session started, proven with a TOTP or recovery code instead of the emailed code.
 */
import { SECOND_FACTOR_ROUTES } from '../../../../iam/contract/second-factor'
import { readInput } from '../../../utils/bff/input'
import { defineBffHandler, relay } from '../../../utils/bff/respond'
import { callAuthed } from '../../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const body = await readInput(event, SECOND_FACTOR_ROUTES.updateEmailSecondFactor.body)
  return relay(event, await callAuthed(event, { method: 'POST', path: '/update/email/second-factor', body }))
})
