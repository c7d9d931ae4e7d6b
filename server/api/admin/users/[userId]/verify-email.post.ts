/** POST /api/admin/users/:userId/verify-email -> IAM POST /admin/users/:userId/verify-email (platform administrators, a recent sign-in: 403 `reauthenticate` asks for it in place). */
import { USER_ID_ERROR } from '../../../../utils/bff/admin'
import { readIamParams } from '../../../../utils/bff/input'
import { defineBffHandler, relay } from '../../../../utils/bff/respond'
import { callAuthedRoute } from '../../../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const params = readIamParams(event, 'adminUserVerifyEmail', USER_ID_ERROR)
  return relay(event, await callAuthedRoute(event, 'adminUserVerifyEmail', { params }))
})
