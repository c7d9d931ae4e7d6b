import { ROUTES } from '../../../../contract/routes'
import { deleteMailTemplate } from '../../../../features/mail/override-service'
import { okEnvelope } from '../../../../http/respond'
import { defineRoute } from '../../../../http/route'

/** DELETE /admin/mail-templates/:kind/:locale (platform administrators, a recent sign-in): the catalogue's words apply again. */
export default defineRoute(ROUTES.adminMailTemplateDelete, [], async ({ ctx, params, event }) => {
  const adminPublicId = typeof event.context.user?.payload.sub === 'string' ? event.context.user.payload.sub : null
  return okEnvelope({ deleted: await deleteMailTemplate(ctx, params.kind, params.locale, adminPublicId) })
})
