/** POST /api/orgs/:orgId/webhooks `{ url, eventTypes, description?, enabled? }` -> IAM POST /orgs/:orgId/webhooks (owners; organization event types only): the endpoint and its signing secret, in this answer only. */
import { readIamBody, readIamParams } from '../../../../utils/bff/input'
import { ORG_ID_ERROR } from '../../../../utils/bff/orgs'
import { defineBffHandler, relay } from '../../../../utils/bff/respond'
import { callAuthedRoute } from '../../../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const params = readIamParams(event, 'orgWebhookCreate', ORG_ID_ERROR)
  const { body } = await readIamBody(event, 'orgWebhookCreate')
  return relay(event, await callAuthedRoute(event, 'orgWebhookCreate', { params, body }))
})
