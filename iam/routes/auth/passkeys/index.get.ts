import { defineEventHandler } from 'h3'
import { useIam } from '../../../context'
import { listAccountPasskeys } from '../../../features/second-factors/passkeys/registration-service'
import { fullAuthentication } from '../../../http/auth'
import { okEnvelope } from '../../../http/respond'

/** GET /auth/passkeys (full authentication): 200 `{ passkeys }`, newest first; 401. */
export default defineEventHandler(async (event) => {
  const user = await fullAuthentication(event)
  return okEnvelope({ passkeys: await listAccountPasskeys(useIam(), user.userId) })
})
