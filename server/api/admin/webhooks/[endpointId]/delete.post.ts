/** POST /api/admin/webhooks/:endpointId/delete -> IAM DELETE /admin/webhooks/:endpointId (platform administrators, a recent sign-in): the endpoint goes with its deliveries. */
import { WEBHOOK_ID_ERROR } from '../../../../utils/bff/admin'
import { readIamParams } from '../../../../utils/bff/input'
import { defineBffHandler, relay } from '../../../../utils/bff/respond'
import { callAuthedRoute } from '../../../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const params = readIamParams(event, 'adminWebhookDelete', WEBHOOK_ID_ERROR)
  return relay(event, await callAuthedRoute(event, 'adminWebhookDelete', { params }))
})
