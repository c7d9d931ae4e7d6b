/** POST /api/admin/users/:userId/unban -> IAM POST /admin/users/:userId/unban (platform administrators, a recent sign-in: 403 `reauthenticate` asks for it in place). */
import { USER_ID_ERROR } from '../../../../utils/bff/admin'
import { readIamParams } from '../../../../utils/bff/input'
import { defineBffHandler, relay } from '../../../../utils/bff/respond'
import { callAuthedRoute } from '../../../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const params = readIamParams(event, 'adminUserUnban', USER_ID_ERROR)
  return relay(event, await callAuthedRoute(event, 'adminUserUnban', { params }))
})
