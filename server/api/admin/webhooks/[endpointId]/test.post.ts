/** POST /api/admin/webhooks/:endpointId/test -> IAM POST /admin/webhooks/:endpointId/test (platform administrators, a recent sign-in): a `webhook.test` event queued for this endpoint alone. */
import { WEBHOOK_ID_ERROR } from '../../../../utils/bff/admin'
import { readIamParams } from '../../../../utils/bff/input'
import { defineBffHandler, relay } from '../../../../utils/bff/respond'
import { callAuthedRoute } from '../../../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const params = readIamParams(event, 'adminWebhookTest', WEBHOOK_ID_ERROR)
  return relay(event, await callAuthedRoute(event, 'adminWebhookTest', { params }))
})
