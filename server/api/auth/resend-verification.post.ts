/** POST /api/auth/resend-verification (signed in, no body) -> IAM POST /auth/resend-verification. */
import { defineBffHandler, relay } from '../../utils/bff/respond'
import { callAuthed } from '../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const res = await callAuthed(event, { method: 'POST', path: '/auth/resend-verification' })
  return relay(event, res)
})
