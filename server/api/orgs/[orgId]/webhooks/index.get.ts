/** GET /api/orgs/:orgId/webhooks -> IAM GET /orgs/:orgId/webhooks (owners): the organization's endpoints with their success rates, and the catalogue version. */
import { readIamParams } from '../../../../utils/bff/input'
import { ORG_ID_ERROR } from '../../../../utils/bff/orgs'
import { defineBffHandler, relay } from '../../../../utils/bff/respond'
import { callAuthedRoute } from '../../../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const params = readIamParams(event, 'orgWebhooks', ORG_ID_ERROR)
  return relay(event, await callAuthedRoute(event, 'orgWebhooks', { params }))
})
