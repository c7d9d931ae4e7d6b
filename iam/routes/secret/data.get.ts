import { defineEventHandler } from 'h3'
import { requireAuthorizedAccount } from '../../http/authorized-account'
import { getClientIp, requestHeader } from '../../http/request'

/** GET /secret/data (full authentication): who is calling, for the gateway. */
export default defineEventHandler(async (event) => {
  const { user, account } = await requireAuthorizedAccount(event)
  return {
    userId: user.userId,
    authorized: true,
    ipAddress: getClientIp(event),
    userAgent: requestHeader(event, 'user-agent') ?? '',
    date: new Date().toISOString(),
    roles: account.roles,
  }
})
