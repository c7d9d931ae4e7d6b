/** POST /api/orgs/:orgId/webhooks/:endpointId/deliveries/:deliveryId/replay -> the IAM's route of that path (owners): the delivery sent again at once, same `webhook-id`. */
import { readIamParams } from '../../../../../../../utils/bff/input'
import { ORG_WEBHOOK_ID_ERROR } from '../../../../../../../utils/bff/orgs'
import { defineBffHandler, relay } from '../../../../../../../utils/bff/respond'
import { callAuthedRoute } from '../../../../../../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const params = readIamParams(event, 'orgWebhookReplayOne', ORG_WEBHOOK_ID_ERROR)
  return relay(event, await callAuthedRoute(event, 'orgWebhookReplayOne', { params }))
})
