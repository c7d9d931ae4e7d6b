import { ROUTES } from '../../../../contract/routes'
import { requestLocale } from '../../../../http/link-submission'
import { finishRegistration } from '../../../../features/second-factors/passkeys/registration-service'
import { authFail } from '../../../../http/auth'
import { okEnvelope } from '../../../../http/respond'
import { defineRoute } from '../../../../http/route'

/**
 * POST /auth/passkeys/register/verify (full authentication, `{ credential, name? }`): 200
 * `{ passkey }`; 400 validation or an answer that does not verify; 401; 403 XSS, address never confirmed or re-authentication required; 409 already registered.
 */
export default defineRoute(ROUTES.passkeyRegisterVerify, [], async ({ event, ctx, user, ip, body }) => {
  const actor = { visitorRowId: user.visitorRowId, ipAddress: ip, locale: requestLocale(event) }
  const result = await finishRegistration(ctx, { userId: user.userId, actor, credential: body.credential, name: body.name })
  if (result.ok) return okEnvelope({ passkey: result.passkey })
  if (result.code === 'already_registered') return authFail(409, 'passkey_already_registered', 'This passkey is already registered')
  return authFail(400, 'passkey_unverified', 'The passkey could not be verified; try again')
})
