import { defineEventHandler } from 'h3'
import { useIam } from '../../../context'
import { ROUTES } from '../../../contract/routes'
import { removePasskey } from '../../../features/second-factors/passkeys/registration-service'
import { authFail, fullAuthentication } from '../../../http/auth'
import { getClientIp } from '../../../http/request'
import { requireRecentSignIn } from '../../../http/reauthenticate'
import { okEnvelope } from '../../../http/respond'
import { readRouteInput } from '../../../http/route-input'

/** POST /auth/passkeys/delete (full authentication, `{ id }`): 200; 400 validation; 401; 403 re-authentication required; 404 not this account's. */
export default defineEventHandler(async (event) => {
  const user = await fullAuthentication(event)
  requireRecentSignIn(event)
  const { id } = readRouteInput(event, ROUTES.passkeyDelete, 'body')
  const actor = { visitorRowId: user.visitorRowId, ipAddress: getClientIp(event) }
  if (!(await removePasskey(useIam(), { userId: user.userId, actor, id }))) return authFail(404, 'No such passkey')
  return okEnvelope({ deleted: true as const })
})
