import { defineEventHandler } from 'h3'
import { ROUTES } from '../../contract/routes'
import { updateName } from '../../features/users/profile'
import { authenticateAccount, readAccountBody } from '../../http/account-input'
import { okEnvelope } from '../../http/respond'

/** POST /auth/profile `{ name }` (full authentication): 200 `{ name }`; 400 validation; 401; 403 XSS (device banned). */
export default defineEventHandler(async (event) => {
  const { ctx, user, actor } = await authenticateAccount(event)
  const body = await readAccountBody(event, ROUTES.updateProfile)
  return okEnvelope(await updateName(ctx, { userId: user.userId, actor, name: body.name }))
})
