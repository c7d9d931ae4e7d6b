/** POST /api/admin/webhooks/:endpointId/deliveries/:deliveryId/replay -> the IAM's route of that path (platform administrators, a recent sign-in): the delivery sent again at once, same `webhook-id`. */
import { WEBHOOK_ID_ERROR } from '../../../../../../utils/bff/admin'
import { readIamParams } from '../../../../../../utils/bff/input'
import { defineBffHandler, relay } from '../../../../../../utils/bff/respond'
import { callAuthedRoute } from '../../../../../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const params = readIamParams(event, 'adminWebhookReplayOne', WEBHOOK_ID_ERROR)
  return relay(event, await callAuthedRoute(event, 'adminWebhookReplayOne', { params }))
})
