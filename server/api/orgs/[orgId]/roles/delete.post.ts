/** POST /api/orgs/:orgId/roles/delete `{ roleId }` -> IAM POST /orgs/:orgId/roles/delete: `{ data: { deleted } }`; 409 still held. */
import { readIamBody, readIamParams } from '../../../../utils/bff/input'
import { ORG_ID_ERROR } from '../../../../utils/bff/orgs'
import { defineBffHandler, relay } from '../../../../utils/bff/respond'
import { callAuthedRoute } from '../../../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const params = readIamParams(event, 'orgRoleDelete', ORG_ID_ERROR)
  const { body } = await readIamBody(event, 'orgRoleDelete')
  return relay(event, await callAuthedRoute(event, 'orgRoleDelete', { params, body }))
})
