import { defineEventHandler } from 'h3'
import { useIam } from '../../../../context'
import { ROUTES } from '../../../../contract/routes'
import { finishRegistration } from '../../../../features/second-factors/passkeys/registration-service'
import { authFail, fullAuthentication, rejectXss } from '../../../../http/auth'
import { getClientIp, getJsonBody } from '../../../../http/request'
import { requireRecentSignIn, requireVerifiedEmail } from '../../../../http/reauthenticate'
import { okEnvelope } from '../../../../http/respond'
import { readRouteInput } from '../../../../http/route-input'

/**
 * POST /auth/passkeys/register/verify (full authentication, `{ credential, name? }`): 200
 * `{ passkey }`; 400 validation or an answer that does not verify; 401; 403 XSS, address never confirmed or re-authentication required; 409 already registered.
 */
export default defineEventHandler(async (event) => {
  const user = await fullAuthentication(event)
  requireVerifiedEmail(event)
  requireRecentSignIn(event)
  await rejectXss(event, getJsonBody(event))
  const body = readRouteInput(event, ROUTES.passkeyRegisterVerify, 'body')
  const actor = { visitorRowId: user.visitorRowId, ipAddress: getClientIp(event) }
  const result = await finishRegistration(useIam(), { userId: user.userId, actor, credential: body.credential, name: body.name })
  if (result.ok) return okEnvelope({ passkey: result.passkey })
  if (result.code === 'already_registered') return authFail(409, 'This passkey is already registered')
  return authFail(400, 'The passkey could not be verified; try again')
})
