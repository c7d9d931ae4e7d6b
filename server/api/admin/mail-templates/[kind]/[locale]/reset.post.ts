/** POST /api/admin/mail-templates/:kind/:locale/reset -> IAM DELETE /admin/mail-templates/:kind/:locale (platform administrators, a recent sign-in): the catalogue's words apply again. */
import { MAIL_TEMPLATE_ERROR } from '../../../../../utils/bff/admin'
import { readIamParams } from '../../../../../utils/bff/input'
import { defineBffHandler, relay } from '../../../../../utils/bff/respond'
import { callAuthedRoute } from '../../../../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const params = readIamParams(event, 'adminMailTemplateDelete', MAIL_TEMPLATE_ERROR)
  return relay(event, await callAuthedRoute(event, 'adminMailTemplateDelete', { params }))
})
