import { ROUTES } from '../../../contract/routes'
import { requestLocale } from '../../../http/link-submission'
import { removePasskey } from '../../../features/second-factors/passkeys/registration-service'
import { authFail } from '../../../http/auth'
import { okEnvelope } from '../../../http/respond'
import { body, defineRoute } from '../../../http/route'

/** POST /auth/passkeys/delete (full authentication, `{ id }`): 200; 400 validation; 401; 403 re-authentication required; 404 not this account's. */
export default defineRoute(ROUTES.passkeyDelete, [body({ markupCheck: false })], async ({ event, ctx, user, ip, body }) => {
  const actor = { visitorRowId: user.visitorRowId, ipAddress: ip, locale: requestLocale(event) }
  if (!(await removePasskey(ctx, { userId: user.userId, actor, id: body.id }))) return authFail(404, 'passkey_not_found', 'No such passkey')
  return okEnvelope({ deleted: true as const })
})
