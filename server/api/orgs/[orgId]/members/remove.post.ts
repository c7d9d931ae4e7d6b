/** POST /api/orgs/:orgId/members/remove `{ userId }` -> IAM POST /orgs/:orgId/members/remove: `{ data: { removed } }`; 409 the last owner. */
import { readIamBody, readIamParams } from '../../../../utils/bff/input'
import { ORG_ID_ERROR } from '../../../../utils/bff/orgs'
import { defineBffHandler, relay } from '../../../../utils/bff/respond'
import { callAuthedRoute } from '../../../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const params = readIamParams(event, 'orgMemberRemove', ORG_ID_ERROR)
  const { body } = await readIamBody(event, 'orgMemberRemove')
  return relay(event, await callAuthedRoute(event, 'orgMemberRemove', { params, body }))
})
