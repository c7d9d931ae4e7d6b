/**
 * GET /api/public/verify?privilege=<privilege> with the raw token in `x-api-key` (spec "Public API
 * token verification"). No session, no cookies, no body: the request-rules middleware leaves this
 * route untouched. The table and limiter rule 5 live in features/api-tokens/public-verify.ts.
 */
import { defineEventHandler, getQuery } from 'h3'
import { useIam } from '../../../context'
import { apiTokenService } from '../../../features/api-tokens/service'
import { verifyPublicRequest } from '../../../features/api-tokens/public-verify'
import { renderVerifyOutcome } from '../../../http/api-token-outcomes'

export default defineEventHandler(async (event) => {
  const ctx = useIam()
  const outcome = await verifyPublicRequest(
    apiTokenService(ctx),
    {
      // as received: a repeated header arrives joined ("a, b") and reads as no key
      apiKey: event.node.req.headers['x-api-key'],
      ip: event.context.clientIp,
      privilege: getQuery(event).privilege,
    },
    ctx.now,
  )
  return renderVerifyOutcome(event, outcome)
})
