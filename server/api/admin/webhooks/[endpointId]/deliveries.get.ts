/** GET /api/admin/webhooks/:endpointId/deliveries?status=&limit= -> IAM GET /admin/webhooks/:endpointId/deliveries (platform administrators): the delivery log, newest first. */
import { readDeliveriesQuery, WEBHOOK_ID_ERROR } from '../../../../utils/bff/admin'
import { readIamParams } from '../../../../utils/bff/input'
import { defineBffHandler, relay } from '../../../../utils/bff/respond'
import { callAuthedRoute } from '../../../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const params = readIamParams(event, 'adminWebhookDeliveries', WEBHOOK_ID_ERROR)
  const query = readDeliveriesQuery(event, 'adminWebhookDeliveries')
  return relay(event, await callAuthedRoute(event, 'adminWebhookDeliveries', { params, query }))
})
