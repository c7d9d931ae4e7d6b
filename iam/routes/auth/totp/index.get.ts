import { defineEventHandler } from 'h3'
import { useIam } from '../../../context'
import { totpStatus } from '../../../features/second-factors/totp/totp-service'
import { fullAuthentication } from '../../../http/auth'
import { okEnvelope } from '../../../http/respond'

/** GET /auth/totp (full authentication): 200 `{ enabled, recoveryCodesLeft }`; 401. */
export default defineEventHandler(async (event) => {
  const user = await fullAuthentication(event)
  return okEnvelope(await totpStatus(useIam(), user.userId))
})
