/** POST /api/auth/reset-password?token&random&reason&visitor `{ password, confirmedPassword }` -> IAM POST /auth/reset-password. */
import { z } from 'zod'
import { isFormPost } from '../../utils/bff/forms'
import { callIam } from '../../utils/bff/iam-call'
import { formErrorCode, formReply, readInput, readLinkQuery } from '../../utils/bff/input'
import { defineBffHandler, relay } from '../../utils/bff/respond'

const bodySchema = z.object({ password: z.string().max(1024), confirmedPassword: z.string().max(1024) })

export default defineBffHandler(async (event) => {
  const query = readLinkQuery(event)
  const back = `/reset-password?${new URLSearchParams(query).toString()}`
  const input = await readInput(event, bodySchema, back)
  const res = await callIam(event, { method: 'POST', path: '/auth/reset-password', query, body: input, cookies: ['canary_id'] })
  const body = relay(event, res)
  if (isFormPost(event)) formReply(res.status < 300 ? '/login?reset=1' : back, res.status < 300 ? undefined : formErrorCode(res.status))
  return body
})
