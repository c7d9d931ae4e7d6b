/** POST /api/admin/mail-templates/:kind/:locale/preview `{ texts? }` -> IAM POST .../preview (platform administrators): `{ subject, html, text }` with sample values, nothing stored. */
import { MAIL_TEMPLATE_ERROR } from '../../../../../utils/bff/admin'
import { readIamBody, readIamParams } from '../../../../../utils/bff/input'
import { defineBffHandler, relay } from '../../../../../utils/bff/respond'
import { callAuthedRoute } from '../../../../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const params = readIamParams(event, 'adminMailTemplatePreview', MAIL_TEMPLATE_ERROR)
  const { body } = await readIamBody(event, 'adminMailTemplatePreview')
  return relay(event, await callAuthedRoute(event, 'adminMailTemplatePreview', { params, body }))
})
