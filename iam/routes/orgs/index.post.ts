import { ROUTES } from '../../contract/routes'
import { createOrganization } from '../../features/organizations/organizations'
import { authFail } from '../../http/auth'
import { okEnvelope } from '../../http/respond'
import { defineRoute } from '../../http/route'
import { setResponseStatus } from 'h3'

/** POST /orgs (full authentication) `{ name, slug }`: a new organization, owned by the user. */
export default defineRoute(ROUTES.orgCreate, [], async ({ event, ctx, user, actor, body }) => {
  const result = await createOrganization(ctx.db, { userId: user.userId, name: body.name, slug: body.slug, actor, now: ctx.now() })
  if (!result.ok) return authFail(409, 'slug_taken', 'That slug is taken')
  setResponseStatus(event, 201)
  return okEnvelope({ org: result.org })
})
