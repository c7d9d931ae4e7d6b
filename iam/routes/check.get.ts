import { getRequestHeader, setResponseStatus } from 'h3'
import type { ErrorCode } from '../contract/error-codes'
import { ROUTES } from '../contract/routes'
import { isCanaryId, isKnownCanary, newCanaryId, recordVisit } from '../features/devices/devices-service'
import { getCanaryCookie, setCanaryCookie } from '../http/cookies'
import { defineRoute, limit } from '../http/route'

/**
 * GET /check (bot detection): issues the canary_id cookie when absent, records the device
 * synchronously (so the next signup/login finds it) and says whether it is banned (403).
 *
 * A request without a known canary writes a new visitor row, so those are limited per client IP
 * (rate_limiters.check) before any write: 429 `{ error, retry }` + Retry-After. A known canary
 * only updates its own row and costs no point, so browsers behind one NAT address keep working.
 */
export default defineRoute(
  ROUTES.check,
  // a known device costs nothing: only a request that writes a new visitor row spends the IP's budget
  [limit('check', ({ ip }) => ({ ip }), { unless: ({ ctx, event }) => isKnownCanary(ctx.db, getCanaryCookie(event)) })],
  async ({ event, ctx, ip: ipAddress }) => {
    let canaryId = getCanaryCookie(event)
    if (!isCanaryId(canaryId)) {
      canaryId = newCanaryId()
      setCanaryCookie(event, canaryId)
    }
    const visit = await recordVisit(ctx, { canaryId, ipAddress, userAgent: getRequestHeader(event, 'user-agent') ?? '' })
    const time = new Date().toISOString()
    if (visit.banned) {
      setResponseStatus(event, 403)
      return { results: { success: false, banned: true, time, ipAddress }, message: 'This device is banned', code: 'device_banned' satisfies ErrorCode }
    }
    return { results: { success: true, banned: false, time, ipAddress }, message: 'Device recorded' }
  },
)
