import { ROUTES } from '../../../contract/routes'
import { renameAccountPasskey } from '../../../features/second-factors/passkeys/registration-service'
import { authFail } from '../../../http/auth'
import { okEnvelope } from '../../../http/respond'
import { defineRoute } from '../../../http/route'

/** POST /auth/passkeys/rename `{ id, name }` (full authentication): 200 `{ passkey }`; 400 validation; 401; 403 XSS; 404 not this account's. */
export default defineRoute(ROUTES.passkeyRename, [], async ({ ctx, user, body }) => {
  const passkey = await renameAccountPasskey(ctx, { userId: user.userId, id: body.id, name: body.name })
  if (!passkey) return authFail(404, 'passkey_not_found', 'No such passkey')
  return okEnvelope({ passkey })
})
