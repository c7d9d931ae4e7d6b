/** POST /api/orgs/:orgId/roles `{ name, permissions }` -> IAM POST /orgs/:orgId/roles (roles:manage): 201 `{ data: { role } }`; 400 an owner-only permission; 409 name taken. */
import { readIamBody, readIamParams } from '../../../utils/bff/input'
import { ORG_ID_ERROR } from '../../../utils/bff/orgs'
import { defineBffHandler, relay } from '../../../utils/bff/respond'
import { callAuthedRoute } from '../../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const params = readIamParams(event, 'orgRoleCreate', ORG_ID_ERROR)
  const { body } = await readIamBody(event, 'orgRoleCreate')
  return relay(event, await callAuthedRoute(event, 'orgRoleCreate', { params, body }))
})
