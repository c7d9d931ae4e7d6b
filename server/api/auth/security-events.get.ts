/** GET /api/auth/security-events?limit=&before= -> IAM GET /auth/security-events: the user's own events, newest first, `nextBefore` for the next page. */
import { getQuery } from 'h3'
import { ROUTES } from '../../../iam/contract/routes'
import { bffFail, defineBffHandler, relay } from '../../utils/bff/respond'
import { callAuthedRoute } from '../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const raw = getQuery(event)
  if (!ROUTES.listSecurityEvents.query.safeParse(raw).success) bffFail(400, { ok: false, error: 'Invalid page of security events.', code: 'validation_failed' })
  // only the two known parameters travel, as the strings the IAM parses itself
  const query: Record<string, string> = {}
  for (const key of ['limit', 'before'] as const) if (typeof raw[key] === 'string') query[key] = raw[key]
  const res = await callAuthedRoute(event, 'listSecurityEvents', { query })
  return relay(event, res)
})
