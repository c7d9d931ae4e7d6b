/**
 * GET /api/public/verify?privilege=<privilege> with the raw token in `x-api-key` (docs/api-tokens.md). No session, no cookies, no body: the request-rules middleware leaves this
 * route untouched. The table and limiter rule 5 live in features/api-tokens/public-verify.ts.
 */
import { getQuery, type H3Event } from 'h3'
import { ROUTES } from '../../../contract/routes'
import { apiTokenService } from '../../../features/api-tokens/api-token-service'
import { verifyPublicRequest } from '../../../features/api-tokens/public-verify'
import { isPrivilege } from '../../../features/api-tokens/results'
import { renderVerifyOutcome } from '../../../http/api-token-outcomes'
import { counted, defineRoute, readByFeature } from '../../../http/route'

const PREFIX = 'privilege='

/**
 * The privilege query value. The usual query, `privilege=<one of the five words>`, is read as it
 * is: the words are plain [a-z], so h3's parser would give exactly that value (no `&`, `%` or `+`
 * to interpret), and parsing the URL cost a few microseconds per verification. Anything else
 * (another word, encodings, repeats, other keys) goes through h3's getQuery as before.
 */
function privilegeOf(event: H3Event): unknown {
  const path = event.path
  const query = path.indexOf('?')
  if (query >= 0 && path.startsWith(PREFIX, query + 1)) {
    const value = path.slice(query + 1 + PREFIX.length)
    if (isPrivilege(value)) return value
  }
  return getQuery(event).privilege
}

export default defineRoute(
  ROUTES.publicVerify,
  // the controller runs both limiters in its own order (features/api-tokens/public-verify.ts) and judges the privilege itself
  [readByFeature('query'), counted('generalUnionLimiter'), counted('consumptionRateLimiter')],
  async ({ event, ctx }) => {
    const outcome = await verifyPublicRequest(
      apiTokenService(ctx),
      {
        // as received: a repeated header arrives joined ("a, b") and reads as no key
        apiKey: event.node.req.headers['x-api-key'],
        ip: event.context.clientIp,
        privilege: privilegeOf(event),
      },
      ctx.now,
    )
    return renderVerifyOutcome(event, outcome)
  },
)
