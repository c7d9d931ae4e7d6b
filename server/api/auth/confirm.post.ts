/** POST /api/auth/confirm?token&random&reason&visitor `{ code }` -> IAM POST /auth/verify-custom-mfa (full authentication). */
import { z } from 'zod'
import { readInput, readLinkQuery } from '../../utils/bff/input'
import { defineBffHandler, relay } from '../../utils/bff/respond'
import { callAuthedRoute } from '../../utils/bff/session'

const bodySchema = z.object({ code: z.string().trim().regex(/^\d{7}$/, 'Enter the 7-digit code from the email.') })

export default defineBffHandler(async (event) => {
  const query = readLinkQuery(event)
  const body = await readInput(event, bodySchema)
  const res = await callAuthedRoute(event, 'verifyCustomMfa', { query, body })
  return relay(event, res)
})
