/** POST /api/orgs/:orgId/roles/update `{ roleId, name, permissions }` -> IAM POST /orgs/:orgId/roles/update (roles:manage): `{ data: { role } }`; 400 an owner-only permission; 404; 409 name taken. */
import { readIamBody, readIamParams } from '../../../../utils/bff/input'
import { ORG_ID_ERROR } from '../../../../utils/bff/orgs'
import { defineBffHandler, relay } from '../../../../utils/bff/respond'
import { callAuthedRoute } from '../../../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const params = readIamParams(event, 'orgRoleUpdate', ORG_ID_ERROR)
  const { body } = await readIamBody(event, 'orgRoleUpdate')
  return relay(event, await callAuthedRoute(event, 'orgRoleUpdate', { params, body }))
})
