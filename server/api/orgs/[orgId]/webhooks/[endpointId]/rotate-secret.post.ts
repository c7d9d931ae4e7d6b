/** POST /api/orgs/:orgId/webhooks/:endpointId/rotate-secret -> the IAM's route of that path (owners): the new secret, in this answer only. */
import { readIamParams } from '../../../../../utils/bff/input'
import { ORG_WEBHOOK_ID_ERROR } from '../../../../../utils/bff/orgs'
import { defineBffHandler, relay } from '../../../../../utils/bff/respond'
import { callAuthedRoute } from '../../../../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const params = readIamParams(event, 'orgWebhookRotateSecret', ORG_WEBHOOK_ID_ERROR)
  return relay(event, await callAuthedRoute(event, 'orgWebhookRotateSecret', { params }))
})
