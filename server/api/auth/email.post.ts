/**
 * POST /api/auth/email?token&random&reason&visitor `{ code, newEmail }` -> IAM POST /update/email
 * (full authentication; the link is the custom MFA link of reason CHANGE_EMAIL). On 200 the IAM
 * issues a new token pair and revokes the user's other sessions.
 */
import { z } from 'zod'
import { readInput, readLinkQuery } from '../../utils/bff/input'
import { defineBffHandler, relay } from '../../utils/bff/respond'
import { callAuthedRoute } from '../../utils/bff/session'

const bodySchema = z.object({
  code: z.string().trim().regex(/^\d{7}$/, 'Enter the 7-digit code from the email.'),
  newEmail: z.string().trim().min(3, 'Enter the new email address.').max(320),
})

export default defineBffHandler(async (event) => {
  const query = readLinkQuery(event)
  const body = await readInput(event, bodySchema)
  const res = await callAuthedRoute(event, 'updateEmail', { query, body })
  return relay(event, res)
})
