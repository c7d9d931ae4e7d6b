/** POST /api/auth/totp/enable (signed in) `{ code }` -> IAM POST /auth/totp/enable: `{ data: { recoveryCodes } }`, shown once. */
import { SECOND_FACTOR_ROUTES } from '../../../../iam/contract/second-factor'
import { readInput } from '../../../utils/bff/input'
import { defineBffHandler, relay } from '../../../utils/bff/respond'
import { callAuthed } from '../../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const body = await readInput(event, SECOND_FACTOR_ROUTES.totpEnable.body)
  return relay(event, await callAuthed(event, { method: 'POST', path: '/auth/totp/enable', body }))
})
