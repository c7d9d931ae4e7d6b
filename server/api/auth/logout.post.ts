/**
 * POST /api/auth/logout -> IAM POST /auth/logout (Bearer + session + canary_id), through
 * endBffSession: the browser's cookies are cleared whatever the IAM answers.
 */
import { isFormPost } from '../../utils/bff/forms'
import { formReply } from '../../utils/bff/input'
import { defineBffHandler } from '../../utils/bff/respond'
import { endBffSession } from '../../utils/bff/sign-out'

export default defineBffHandler(async (event) => {
  await endBffSession(event)
  if (isFormPost(event)) formReply('/login?signedOut=1')
  return { ok: true, date: new Date().toISOString() }
})
