/** POST /api/admin/webhooks/:endpointId/rotate-secret -> IAM POST /admin/webhooks/:endpointId/rotate-secret (platform administrators, a recent sign-in): the new secret, in this answer only. */
import { WEBHOOK_ID_ERROR } from '../../../../utils/bff/admin'
import { readIamParams } from '../../../../utils/bff/input'
import { defineBffHandler, relay } from '../../../../utils/bff/respond'
import { callAuthedRoute } from '../../../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const params = readIamParams(event, 'adminWebhookRotateSecret', WEBHOOK_ID_ERROR)
  return relay(event, await callAuthedRoute(event, 'adminWebhookRotateSecret', { params }))
})
