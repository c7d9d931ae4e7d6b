import { ROUTES } from '../../contract/routes'
import { updateName } from '../../features/users/profile'
import { okEnvelope } from '../../http/respond'
import { defineRoute } from '../../http/route'

/** POST /auth/profile `{ name }` (full authentication): 200 `{ name }`; 400 validation; 401; 403 XSS (device banned). */
export default defineRoute(ROUTES.updateProfile, [], async ({ ctx, user, actor, body }) =>
  okEnvelope(await updateName(ctx, { userId: user.userId, actor, name: body.name })),
)
