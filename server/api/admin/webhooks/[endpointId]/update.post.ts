/** POST /api/admin/webhooks/:endpointId/update `{ url, eventTypes, description?, enabled? }` -> IAM PUT /admin/webhooks/:endpointId (platform administrators, a recent sign-in). POST: the pages' fetch helper sends GET and POST only. */
import { WEBHOOK_ID_ERROR } from '../../../../utils/bff/admin'
import { readIamBody, readIamParams } from '../../../../utils/bff/input'
import { defineBffHandler, relay } from '../../../../utils/bff/respond'
import { callAuthedRoute } from '../../../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const params = readIamParams(event, 'adminWebhookUpdate', WEBHOOK_ID_ERROR)
  const { body } = await readIamBody(event, 'adminWebhookUpdate')
  return relay(event, await callAuthedRoute(event, 'adminWebhookUpdate', { params, body }))
})
