import { defineEventHandler, setResponseStatus } from 'h3'
import { useIam } from '../../../context'
import { findVisitorById } from '../../../features/devices/visitors-repo'
import { findUserById } from '../../../features/users/users-repo'
import { fullAuthentication } from '../../../http/auth'

/**
 * GET /secret/accesstoken/metadata (full authentication, cookie-only): the decoded access token and
 * when to rotate it. refreshThreshold = 25% of the access TTL; shouldRotate once less remains.
 */
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
  const now = ctx.now()
  const expMs = (user.payload.exp ?? 0) * 1000
  const msUntilExp = Math.max(0, expMs - now)
  const refreshThreshold = Math.round(ctx.config.jwt.access_tokens.expiresInMs * 0.25)
  return {
    authorized: true,
    userId: user.userId,
    // further fields (the spec allows them): what an account page shows without another call
    email: account.email,
    name: account.name,
    sessionId: user.sessionId,
    payload: user.payload,
    roles: user.roles,
    issuedAt: new Date((user.payload.iat ?? 0) * 1000).toISOString(),
    expiresAt: new Date(expMs).toISOString(),
    msUntilExp,
    refreshThreshold,
    shouldRotate: msUntilExp < refreshThreshold,
  }
})
