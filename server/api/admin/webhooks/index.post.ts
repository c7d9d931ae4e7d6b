/** POST /api/admin/webhooks `{ url, eventTypes, description?, enabled? }` -> IAM POST /admin/webhooks (platform administrators, a recent sign-in): the endpoint and its signing secret, in this answer only. */
import { readIamBody } from '../../../utils/bff/input'
import { defineBffHandler, relay } from '../../../utils/bff/respond'
import { callAuthedRoute } from '../../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const { body } = await readIamBody(event, 'adminWebhookCreate')
  return relay(event, await callAuthedRoute(event, 'adminWebhookCreate', { body }))
})
