/** POST /api/orgs/:orgId/domains/verify `{ domainId }` -> IAM POST /orgs/:orgId/domains/verify (owners:manage): reads the TXT record. */
import { readIamBody, readIamParams } from '../../../../utils/bff/input'
import { ORG_ID_ERROR } from '../../../../utils/bff/orgs'
import { defineBffHandler, relay } from '../../../../utils/bff/respond'
import { callAuthedRoute } from '../../../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const params = readIamParams(event, 'orgDomainVerify', ORG_ID_ERROR)
  const { body } = await readIamBody(event, 'orgDomainVerify')
  return relay(event, await callAuthedRoute(event, 'orgDomainVerify', { params, body }))
})
