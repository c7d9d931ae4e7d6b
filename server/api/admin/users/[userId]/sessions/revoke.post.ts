/** POST /api/admin/users/:userId/sessions/revoke -> IAM POST /admin/users/:userId/sessions/revoke: every session of the account ends (platform administrators). */
import { USER_ID_ERROR } from '../../../../../utils/bff/admin'
import { readIamParams } from '../../../../../utils/bff/input'
import { defineBffHandler, relay } from '../../../../../utils/bff/respond'
import { callAuthedRoute } from '../../../../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const params = readIamParams(event, 'adminUserSessionsRevoke', USER_ID_ERROR)
  return relay(event, await callAuthedRoute(event, 'adminUserSessionsRevoke', { params }))
})
