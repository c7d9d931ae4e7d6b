import { ROUTES } from '../../../../contract/routes'
import { userDetail } from '../../../../features/admin/users'
import { ADMIN_NO_SUCH_USER } from '../../../../http/admin-failures'
import { okEnvelope } from '../../../../http/respond'
import { defineRoute } from '../../../../http/route'

/** GET /admin/users/:userId (platform administrators, a recent sign-in): one account's detail, metadata only. */
export default defineRoute(ROUTES.adminUser, [], async ({ ctx, params }) => {
  const detail = await userDetail(ctx, params.userId)
  if (!detail) return ADMIN_NO_SUCH_USER()
  return okEnvelope(detail)
})
