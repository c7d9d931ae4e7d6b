/** POST /api/admin/users/:userId/factors/remove `{ kind: "totp" }` or `{ kind: "passkey", id }` -> IAM POST /admin/users/:userId/factors/remove (platform administrators). */
import { readAdminBody, USER_ID_ERROR } from '../../../../../utils/bff/admin'
import { readIamParams } from '../../../../../utils/bff/input'
import { defineBffHandler, relay } from '../../../../../utils/bff/respond'
import { callAuthedRoute } from '../../../../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const params = readIamParams(event, 'adminUserFactorRemove', USER_ID_ERROR)
  const body = await readAdminBody(event, 'adminUserFactorRemove')
  return relay(event, await callAuthedRoute(event, 'adminUserFactorRemove', { params, body }))
})
