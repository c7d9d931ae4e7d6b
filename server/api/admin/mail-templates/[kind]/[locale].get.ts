/** GET /api/admin/mail-templates/:kind/:locale -> IAM GET /admin/mail-templates/:kind/:locale (platform administrators): the catalogue's words, the override and the placeholders of each text. */
import { MAIL_TEMPLATE_ERROR } from '../../../../utils/bff/admin'
import { readIamParams } from '../../../../utils/bff/input'
import { defineBffHandler, relay } from '../../../../utils/bff/respond'
import { callAuthedRoute } from '../../../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const params = readIamParams(event, 'adminMailTemplate', MAIL_TEMPLATE_ERROR)
  return relay(event, await callAuthedRoute(event, 'adminMailTemplate', { params }))
})
