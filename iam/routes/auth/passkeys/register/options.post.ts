import { defineEventHandler } from 'h3'
import { useIam } from '../../../../context'
import { startRegistration } from '../../../../features/passkeys/registration-service'
import { fullAuthentication } from '../../../../http/auth'
import { okEnvelope } from '../../../../http/respond'

/** POST /auth/passkeys/register/options (full authentication): 200 `{ options }` (creation options); 401. */
export default defineEventHandler(async (event) => {
  const user = await fullAuthentication(event)
  return okEnvelope({ options: await startRegistration(useIam(), { userId: user.userId, visitorRowId: user.visitorRowId }) })
})
