/** POST /api/admin/users/:userId/ban `{ until? }` -> IAM POST /admin/users/:userId/ban (platform administrators): sign-in refused, sessions ended, API tokens suspended. */
import { readAdminBody, USER_ID_ERROR } from '../../../../utils/bff/admin'
import { readIamParams } from '../../../../utils/bff/input'
import { defineBffHandler, relay } from '../../../../utils/bff/respond'
import { callAuthedRoute } from '../../../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const params = readIamParams(event, 'adminUserBan', USER_ID_ERROR)
  const body = await readAdminBody(event, 'adminUserBan')
  return relay(event, await callAuthedRoute(event, 'adminUserBan', { params, body }))
})
