/** POST /api/orgs/:orgId/domains `{ domain }` -> IAM POST /orgs/:orgId/domains (owners:manage): 201 `{ data: { domain } }`. */
import { readIamBody, readIamParams } from '../../../utils/bff/input'
import { ORG_ID_ERROR } from '../../../utils/bff/orgs'
import { defineBffHandler, relay } from '../../../utils/bff/respond'
import { callAuthedRoute } from '../../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const params = readIamParams(event, 'orgDomainAdd', ORG_ID_ERROR)
  const { body } = await readIamBody(event, 'orgDomainAdd')
  return relay(event, await callAuthedRoute(event, 'orgDomainAdd', { params, body }))
})
