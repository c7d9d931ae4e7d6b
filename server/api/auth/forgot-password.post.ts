/** POST /api/auth/forgot-password `{ email }` -> IAM POST /auth/forgot-password (200 whether or not the address exists). */
import { z } from 'zod'
import { ensureDeviceCookie } from '../../utils/bff/canary'
import { isFormPost } from '../../utils/bff/forms'
import { callIamRoute } from '../../utils/bff/iam-call'
import { formErrorCode, formReply, readInput } from '../../utils/bff/input'
import { defineBffHandler, relay } from '../../utils/bff/respond'

const bodySchema = z.object({ email: z.string().trim().min(3, 'Enter your email address.').max(320) })

export default defineBffHandler(async (event) => {
  const input = await readInput(event, bodySchema, '/forgot-password')
  await ensureDeviceCookie(event)
  const res = await callIamRoute(event, 'forgotPassword', { body: input, cookies: ['canary_id'] })
  const body = relay(event, res)
  if (isFormPost(event)) formReply('/forgot-password', res.status < 300 ? 'sent' : formErrorCode(res.status))
  return body
})
