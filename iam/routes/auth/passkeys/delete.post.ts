import { ROUTES } from '../../../contract/routes'
import { requestLocale } from '../../../http/link-submission'
import { removePasskey } from '../../../features/second-factors/passkeys/registration-service'
import { authFail } from '../../../http/auth'
import { okEnvelope } from '../../../http/respond'
import { body, defineRoute } from '../../../http/route'

const LAST_WAY_IN = 'This passkey is the only way to sign in to this account. Set a password or add another passkey first, then remove it.'

/**
 * POST /auth/passkeys/delete (full authentication, `{ id }`): 200; 400 validation; 401; 403
 * re-authentication required; 404 not this account's; 409 the last way in of an account with no
 * password and no linked provider.
 */
export default defineRoute(ROUTES.passkeyDelete, [body({ markupCheck: false })], async ({ event, ctx, user, ip, body }) => {
  const actor = { visitorRowId: user.visitorRowId, ipAddress: ip, locale: requestLocale(event) }
  const result = await removePasskey(ctx, { userId: user.userId, actor, id: body.id })
  if (result.ok) return okEnvelope({ deleted: true as const })
  if (result.code === 'last_way_in') return authFail(409, 'last_way_in', LAST_WAY_IN)
  return authFail(404, 'passkey_not_found', 'No such passkey')
})
