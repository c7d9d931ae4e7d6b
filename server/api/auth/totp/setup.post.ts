/** POST /api/auth/totp/setup (signed in, no body) -> IAM POST /auth/totp/setup: `{ data: { secret, otpauthUrl } }`, shown once. */
import { defineBffHandler, relay } from '../../../utils/bff/respond'
import { callAuthed } from '../../../utils/bff/session'

export default defineBffHandler(async (event) => relay(event, await callAuthed(event, { method: 'POST', path: '/auth/totp/setup' })))
