/** GET /api/orgs/:orgId/webhooks/:endpointId/deliveries?status=&limit= -> the IAM's route of that path (owners): the delivery log, newest first. */
import { readDeliveriesQuery } from '../../../../../utils/bff/admin'
import { readIamParams } from '../../../../../utils/bff/input'
import { ORG_WEBHOOK_ID_ERROR } from '../../../../../utils/bff/orgs'
import { defineBffHandler, relay } from '../../../../../utils/bff/respond'
import { callAuthedRoute } from '../../../../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const params = readIamParams(event, 'orgWebhookDeliveries', ORG_WEBHOOK_ID_ERROR)
  const query = readDeliveriesQuery(event, 'orgWebhookDeliveries')
  return relay(event, await callAuthedRoute(event, 'orgWebhookDeliveries', { params, query }))
})
