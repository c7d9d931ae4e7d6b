import { ROUTES } from '../../../../contract/routes'
import { readMailTemplate } from '../../../../features/mail/override-service'
import { okEnvelope } from '../../../../http/respond'
import { defineRoute } from '../../../../http/route'

/** GET /admin/mail-templates/:kind/:locale (platform administrators, a recent sign-in): the catalogue's words, the override, the placeholders. */
export default defineRoute(ROUTES.adminMailTemplate, [], async ({ ctx, params }) => okEnvelope(await readMailTemplate(ctx, params.kind, params.locale)))
