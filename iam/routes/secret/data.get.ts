import { defineEventHandler, getRequestHeader, setResponseStatus } from 'h3'
import { useIam } from '../../context'
import { findVisitorById } from '../../features/devices/visitors-repo'
import { findUserById } from '../../features/users/users-repo'
import { fullAuthentication } from '../../http/auth'
import { getClientIp } from '../../http/request'

/** GET /secret/data (full authentication): who is calling, for the gateway. */
export default defineEventHandler(async (event) => {
  const ctx = useIam()
  const user = await fullAuthentication(event)
  if (!user) {
    setResponseStatus(event, 401)
    return { authorized: false, reason: 'Not authenticated' }
  }
  const [account, visitor] = await Promise.all([findUserById(ctx.db, user.userId), findVisitorById(ctx.db, user.visitorRowId)])
  if (!account || !visitor) {
    setResponseStatus(event, 404)
    return { authorized: false, reason: 'Not found' }
  }
  return {
    userId: user.userId,
    authorized: true,
    ipAddress: getClientIp(event),
    userAgent: getRequestHeader(event, 'user-agent') ?? '',
    date: new Date().toISOString(),
    roles: account.roles,
  }
})
