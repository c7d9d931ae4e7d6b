/** POST /api/orgs/:orgId/domains/remove `{ domainId }` -> IAM POST /orgs/:orgId/domains/remove (owners:manage). */
import { readIamBody, readIamParams } from '../../../../utils/bff/input'
import { ORG_ID_ERROR } from '../../../../utils/bff/orgs'
import { defineBffHandler, relay } from '../../../../utils/bff/respond'
import { callAuthedRoute } from '../../../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const params = readIamParams(event, 'orgDomainRemove', ORG_ID_ERROR)
  const { body } = await readIamBody(event, 'orgDomainRemove')
  return relay(event, await callAuthedRoute(event, 'orgDomainRemove', { params, body }))
})
