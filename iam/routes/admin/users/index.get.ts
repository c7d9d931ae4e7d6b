import { ROUTES } from '../../../contract/routes'
import { searchUsers } from '../../../features/admin/users'
import { authFail } from '../../../http/auth'
import { okEnvelope } from '../../../http/respond'
import { defineRoute } from '../../../http/route'

/** GET /admin/users (platform administrators, a recent sign-in): a page of accounts, searched by email or name prefix. */
export default defineRoute(ROUTES.adminUsers, [], async ({ ctx, query }) => {
  const result = await searchUsers(ctx, query)
  if (!result.ok) return authFail(400, 'validation_failed', 'Validation failed', { fields: { cursor: 'Not a cursor' } })
  return okEnvelope({ users: result.users, next: result.next })
})
