/**
 * POST /api/auth/reset-password?token&random&reason&visitor `{ password, confirmedPassword, revokeApiTokens? }`
 * -> IAM POST /auth/reset-password (revokeApiTokens always sent as a boolean).
 */
import { z } from 'zod'
import { isFormPost } from '../../utils/bff/forms'
import { callIamRoute } from '../../utils/bff/iam-call'
import { formErrorCode, formReply, readInput, readLinkQuery } from '../../utils/bff/input'
import { defineBffHandler, relay } from '../../utils/bff/respond'

const bodySchema = z.object({
  password: z.string().max(1024),
  confirmedPassword: z.string().max(1024),
  // JSON pages send a boolean; a no-JS form sends "on" for a checked box and nothing otherwise
  revokeApiTokens: z.union([z.boolean(), z.literal('on')]).optional(),
})

export default defineBffHandler(async (event) => {
  const query = readLinkQuery(event)
  const back = `/reset-password?${new URLSearchParams(query).toString()}`
  const { revokeApiTokens, ...passwords } = await readInput(event, bodySchema, back)
  const body = { ...passwords, revokeApiTokens: revokeApiTokens === true || revokeApiTokens === 'on' }
  const res = await callIamRoute(event, 'resetPassword', { query, body, cookies: ['canary_id'] })
  const reply = relay(event, res)
  if (isFormPost(event)) formReply(res.status < 300 ? '/login?reset=1' : back, res.status < 300 ? undefined : formErrorCode(res.status))
  return reply
})
