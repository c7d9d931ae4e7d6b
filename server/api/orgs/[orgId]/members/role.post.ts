/** POST /api/orgs/:orgId/members/role `{ userId, role }` -> IAM POST /orgs/:orgId/members/role: `{ data: { member } }`; 409 the last owner. */
import { readIamBody, readIamParams } from '../../../../utils/bff/input'
import { ORG_ID_ERROR } from '../../../../utils/bff/orgs'
import { defineBffHandler, relay } from '../../../../utils/bff/respond'
import { callAuthedRoute } from '../../../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const params = readIamParams(event, 'orgMemberRole', ORG_ID_ERROR)
  const { body } = await readIamBody(event, 'orgMemberRole')
  return relay(event, await callAuthedRoute(event, 'orgMemberRole', { params, body }))
})
