import { setResponseHeader } from 'h3'
import { exportFileName } from '../../contract/account-export'
import { ROUTES } from '../../contract/routes'
import { exportAccount } from '../../features/users/account-export'
import { failRelogin } from '../../http/auth'
import { defineRoute, limit } from '../../http/route'

/**
 * GET /auth/export (full authentication, a recent sign-in; rate_limiters.export per user): the
 * account's own data as a JSON download. The body is the document itself, not the result
 * envelope: it is the file the person keeps. `no-store`: it holds personal data, which no cache on
 * the way may keep (RFC 9111 section 5.2.2.5).
 */
export default defineRoute(ROUTES.accountExport, [limit('export', (req) => ({ userId: req.user!.userId }))], async ({ event, ctx, user }) => {
  const document = await exportAccount(ctx, { userId: user.userId, currentSessionId: user.sessionId })
  // the account was removed between authentication and this read: its session means nothing now
  if (!document) return failRelogin('USER_NOT_FOUND')
  setResponseHeader(event, 'content-type', 'application/json; charset=utf-8')
  setResponseHeader(event, 'cache-control', 'no-store')
  setResponseHeader(event, 'content-disposition', `attachment; filename="${exportFileName(document.exportedAt)}"`)
  return JSON.stringify(document, null, 2)
})
