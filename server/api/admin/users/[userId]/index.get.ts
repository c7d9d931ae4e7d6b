/** GET /api/admin/users/:userId -> IAM GET /admin/users/:userId: one account's detail (platform administrators). */
import { readIamParams } from '../../../../utils/bff/input'
import { defineBffHandler, relay } from '../../../../utils/bff/respond'
import { callAuthedRoute } from '../../../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const params = readIamParams(event, 'adminUser', 'This is not a user id.')
  return relay(event, await callAuthedRoute(event, 'adminUser', { params }))
})
