/** POST /api/admin/webhooks/:endpointId/replay `{ since, until?, delivered? }` -> the IAM's route of that path (platform administrators, a recent sign-in): the dead deliveries made in [since, until) sent again (the delivered ones too with `delivered`); the answer counts them. */
import { WEBHOOK_ID_ERROR } from '../../../../utils/bff/admin'
import { readIamBody, readIamParams } from '../../../../utils/bff/input'
import { defineBffHandler, relay } from '../../../../utils/bff/respond'
import { callAuthedRoute } from '../../../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const params = readIamParams(event, 'adminWebhookReplay', WEBHOOK_ID_ERROR)
  const { body } = await readIamBody(event, 'adminWebhookReplay')
  return relay(event, await callAuthedRoute(event, 'adminWebhookReplay', { params, body }))
})
