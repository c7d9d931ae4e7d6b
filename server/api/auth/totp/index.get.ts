/** GET /api/auth/totp (signed in) -> IAM GET /auth/totp: `{ data: { enabled, recoveryCodesLeft } }`. */
import { defineBffHandler, relay } from '../../../utils/bff/respond'
import { callAuthed } from '../../../utils/bff/session'

export default defineBffHandler(async (event) => relay(event, await callAuthed(event, { method: 'GET', path: '/auth/totp' })))
