/** POST /api/admin/users/:userId/reset-link -> IAM POST /admin/users/:userId/reset-link (platform administrators, a recent sign-in: 403 `reauthenticate` asks for it in place). */
import { USER_ID_ERROR } from '../../../../utils/bff/admin'
import { readIamParams } from '../../../../utils/bff/input'
import { defineBffHandler, relay } from '../../../../utils/bff/respond'
import { callAuthedRoute } from '../../../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const params = readIamParams(event, 'adminUserResetLink', USER_ID_ERROR)
  return relay(event, await callAuthedRoute(event, 'adminUserResetLink', { params }))
})
