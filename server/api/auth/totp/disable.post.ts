/** POST /api/auth/totp/disable (signed in) `{ code }` (TOTP or recovery code) -> IAM POST /auth/totp/disable. */
import { SECOND_FACTOR_ROUTES } from '../../../../iam/contract/second-factor'
import { readInput } from '../../../utils/bff/input'
import { defineBffHandler, relay } from '../../../utils/bff/respond'
import { callAuthed } from '../../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const body = await readInput(event, SECOND_FACTOR_ROUTES.totpDisable.body)
  return relay(event, await callAuthed(event, { method: 'POST', path: '/auth/totp/disable', body }))
})
