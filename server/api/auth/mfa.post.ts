/**
 * POST /api/auth/mfa?token&random&reason&visitor `{ code }` -> IAM POST /auth/verify-mfa. On 200 the
 * IAM issues a new token pair: the access token goes into `__Secure-a`, `session` is forwarded.
 */
import { z } from 'zod'
import { callIamRoute } from '../../utils/bff/iam-call'
import { readInput, readLinkQuery } from '../../utils/bff/input'
import { defineBffHandler, relay } from '../../utils/bff/respond'

const bodySchema = z.object({ code: z.string().trim().regex(/^\d{7}$/, 'Enter the 7-digit code from the email.') })

export default defineBffHandler(async (event) => {
  const query = readLinkQuery(event)
  const body = await readInput(event, bodySchema)
  const res = await callIamRoute(event, 'verifyMfa', { query, body, cookies: ['canary_id', 'session'] })
  return relay(event, res)
})
