/** POST /api/orgs/:orgId/webhooks/:endpointId/update `{ url, eventTypes, description?, enabled? }` -> IAM PUT /orgs/:orgId/webhooks/:endpointId (owners; organization event types only). POST: the pages' fetch helper sends GET and POST only. */
import { readIamBody, readIamParams } from '../../../../../utils/bff/input'
import { ORG_WEBHOOK_ID_ERROR } from '../../../../../utils/bff/orgs'
import { defineBffHandler, relay } from '../../../../../utils/bff/respond'
import { callAuthedRoute } from '../../../../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const params = readIamParams(event, 'orgWebhookUpdate', ORG_WEBHOOK_ID_ERROR)
  const { body } = await readIamBody(event, 'orgWebhookUpdate')
  return relay(event, await callAuthedRoute(event, 'orgWebhookUpdate', { params, body }))
})
