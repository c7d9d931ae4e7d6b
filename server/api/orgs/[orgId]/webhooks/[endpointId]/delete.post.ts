/** POST /api/orgs/:orgId/webhooks/:endpointId/delete -> IAM DELETE /orgs/:orgId/webhooks/:endpointId (owners): the endpoint goes with its deliveries. */
import { readIamParams } from '../../../../../utils/bff/input'
import { ORG_WEBHOOK_ID_ERROR } from '../../../../../utils/bff/orgs'
import { defineBffHandler, relay } from '../../../../../utils/bff/respond'
import { callAuthedRoute } from '../../../../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const params = readIamParams(event, 'orgWebhookDelete', ORG_WEBHOOK_ID_ERROR)
  return relay(event, await callAuthedRoute(event, 'orgWebhookDelete', { params }))
})
