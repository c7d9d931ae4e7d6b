import { ROUTES } from '../../contract/routes'
import { authorizedAccount } from '../../http/authorized-account'
import { defineRoute } from '../../http/route'
import { getClientIp, requestHeader } from '../../http/request'

/** GET /secret/data (full authentication): who is calling, for the gateway. */
export default defineRoute(ROUTES.secretData, [], (req) => {
  const { event } = req
  const { user, account } = authorizedAccount(req)
  return {
    userId: user.userId,
    authorized: true,
    ipAddress: getClientIp(event),
    userAgent: requestHeader(event, 'user-agent') ?? '',
    date: new Date().toISOString(),
    roles: account.roles,
  }
})
