/**
 * POST /api/admin/mail-templates/:kind/:locale/save `{ texts }` -> IAM PUT /admin/mail-templates/:kind/:locale
 * (platform administrators, a recent sign-in): 400 `mail_text_unknown`, `mail_placeholder_unknown`,
 * `mail_text_markup` with `fields["texts.<key>"]` naming the text at fault. POST here: the pages'
 * one fetch helper (composables/useBff.ts) sends GET and POST only.
 */
import { MAIL_TEMPLATE_ERROR } from '../../../../../utils/bff/admin'
import { readIamBody, readIamParams } from '../../../../../utils/bff/input'
import { defineBffHandler, relay } from '../../../../../utils/bff/respond'
import { callAuthedRoute } from '../../../../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const params = readIamParams(event, 'adminMailTemplateSave', MAIL_TEMPLATE_ERROR)
  const { body } = await readIamBody(event, 'adminMailTemplateSave')
  return relay(event, await callAuthedRoute(event, 'adminMailTemplateSave', { params, body }))
})
