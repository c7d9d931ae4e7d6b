/** POST /api/orgs/:orgId/webhooks/:endpointId/test -> the IAM's route of that path (owners): a `webhook.test` event queued for this endpoint alone. */
import { readIamParams } from '../../../../../utils/bff/input'
import { ORG_WEBHOOK_ID_ERROR } from '../../../../../utils/bff/orgs'
import { defineBffHandler, relay } from '../../../../../utils/bff/respond'
import { callAuthedRoute } from '../../../../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const params = readIamParams(event, 'orgWebhookTest', ORG_WEBHOOK_ID_ERROR)
  return relay(event, await callAuthedRoute(event, 'orgWebhookTest', { params }))
})
