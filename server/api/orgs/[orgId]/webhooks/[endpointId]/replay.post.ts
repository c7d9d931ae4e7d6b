/** POST /api/orgs/:orgId/webhooks/:endpointId/replay `{ since, until?, delivered? }` -> the IAM's route of that path (owners): the dead deliveries made in [since, until) sent again (the delivered ones too with `delivered`); the answer counts them. */
import { readIamBody, readIamParams } from '../../../../../utils/bff/input'
import { ORG_WEBHOOK_ID_ERROR } from '../../../../../utils/bff/orgs'
import { defineBffHandler, relay } from '../../../../../utils/bff/respond'
import { callAuthedRoute } from '../../../../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const params = readIamParams(event, 'orgWebhookReplay', ORG_WEBHOOK_ID_ERROR)
  const { body } = await readIamBody(event, 'orgWebhookReplay')
  return relay(event, await callAuthedRoute(event, 'orgWebhookReplay', { params, body }))
})
