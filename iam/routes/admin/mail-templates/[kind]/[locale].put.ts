import { ROUTES } from '../../../../contract/routes'
import { saveMailTemplate } from '../../../../features/mail/override-service'
import { refuseMailTexts } from '../../../../http/mail-template-failures'
import { okEnvelope } from '../../../../http/respond'
import { body, defineRoute } from '../../../../http/route'

/**
 * PUT /admin/mail-templates/:kind/:locale `{ texts }` (platform administrators, a recent sign-in):
 * replaces the override. Markup is a 400 of its own (`mail_text_markup`), not the device ban of
 * free text elsewhere: texts are the mail's words, refused with a reason the administrator can fix.
 */
export default defineRoute(ROUTES.adminMailTemplateSave, [body({ markupCheck: false })], async ({ ctx, params, body, event }) => {
  const adminPublicId = typeof event.context.user?.payload.sub === 'string' ? event.context.user.payload.sub : null
  const result = await saveMailTemplate(ctx, { kind: params.kind, locale: params.locale, texts: body.texts, adminPublicId })
  if (!result.ok) return refuseMailTexts(result)
  return okEnvelope(result.view)
})
