/** POST /api/auth/sessions/revoke `{ id }` -> IAM POST /auth/sessions/revoke: 200 ended, 404 unknown (or another user's) session. */
import { ROUTES } from '../../../../iam/contract/routes'
import { readInput } from '../../../utils/bff/input'
import { defineBffHandler, relay } from '../../../utils/bff/respond'
import { callAuthed } from '../../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const body = await readInput(event, ROUTES.revokeSession.body)
  const res = await callAuthed(event, { method: 'POST', path: '/auth/sessions/revoke', body })
  return relay(event, res)
})
