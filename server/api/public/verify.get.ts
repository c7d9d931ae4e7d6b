/**
 * GET /api/public/verify?privilege=<p> with `x-api-key`: API token verification for machine
 * clients, at the same path as on the IAM. The IAM stays behind HMAC (iam/middleware/20.hmac.ts:
 * only local /health is exempt), so outside callers verify through the gateway, which signs the
 * call and forwards only the privilege, the key and the caller's address (for IP allow-lists).
 * The IAM's status, envelope and Retry-After pass through unchanged: they are the answer machine
 * clients are written against (docs/api-tokens.md).
 */
import { getQuery, getRequestHeader, setResponseHeader, setResponseStatus } from 'h3'
import { callIamRoute } from '../../utils/bff/iam-call'
import { defineBffHandler } from '../../utils/bff/respond'

export default defineBffHandler(async (event) => {
  const { privilege } = getQuery(event)
  const apiKey = getRequestHeader(event, 'x-api-key')
  const res = await callIamRoute(event, 'publicVerify', {
    // a repeated or absent parameter is the IAM's to refuse (400 Bad Request), not ours to guess
    query: typeof privilege === 'string' ? { privilege } : undefined,
    apiKey,
  })
  setResponseStatus(event, res.status)
  const retryAfter = res.headers.get('retry-after')
  // a seconds count or "permanent" (iam/http/rate-limit.ts): h3 types this header as a number only
  const header: string = 'retry-after'
  if (retryAfter) setResponseHeader(event, header, retryAfter)
  return res.body
})
