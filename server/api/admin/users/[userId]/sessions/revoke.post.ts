/** POST /api/admin/users/:userId/sessions/revoke -> IAM POST /admin/users/:userId/sessions/revoke: every session of the account ends (platform administrators). */
import { readIamParams } from '../../../../../utils/bff/input'
import { defineBffHandler, relay } from '../../../../../utils/bff/respond'
import { callAuthedRoute } from '../../../../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const params = readIamParams(event, 'adminUserSessionsRevoke', 'This is not a user id.')
  return relay(event, await callAuthedRoute(event, 'adminUserSessionsRevoke', { params }))
})
