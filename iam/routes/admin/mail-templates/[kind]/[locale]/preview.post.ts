import { ROUTES } from '../../../../../contract/routes'
import { previewMailTemplate } from '../../../../../features/mail/override-service'
import { refuseMailTexts } from '../../../../../http/mail-template-failures'
import { okEnvelope } from '../../../../../http/respond'
import { body, defineRoute } from '../../../../../http/route'

/**
 * POST /admin/mail-templates/:kind/:locale/preview `{ texts? }` (platform administrators, a recent
 * sign-in): `{ subject, html, text }` with sample values; the texts given are checked, never stored.
 */
export default defineRoute(ROUTES.adminMailTemplatePreview, [body({ markupCheck: false })], async ({ ctx, params, body }) => {
  const result = await previewMailTemplate(ctx, { kind: params.kind, locale: params.locale, texts: body.texts })
  if (!result.ok) return refuseMailTexts(result)
  return okEnvelope(result.mail)
})
