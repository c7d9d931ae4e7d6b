/** GET /api/admin/users/:userId -> IAM GET /admin/users/:userId: one account's detail (platform administrators). */
import { USER_ID_ERROR } from '../../../../utils/bff/admin'
import { readIamParams } from '../../../../utils/bff/input'
import { defineBffHandler, relay } from '../../../../utils/bff/respond'
import { callAuthedRoute } from '../../../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const params = readIamParams(event, 'adminUser', USER_ID_ERROR)
  return relay(event, await callAuthedRoute(event, 'adminUser', { params }))
})
