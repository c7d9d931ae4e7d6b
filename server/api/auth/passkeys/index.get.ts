/** GET /api/auth/passkeys (signed in) -> IAM GET /auth/passkeys: `{ data: { passkeys } }`. */
import { defineBffHandler, relay } from '../../../utils/bff/respond'
import { callAuthed } from '../../../utils/bff/session'

export default defineBffHandler(async (event) => relay(event, await callAuthed(event, { method: 'GET', path: '/auth/passkeys' })))
