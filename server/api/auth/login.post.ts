/** POST /api/auth/login -> IAM POST /login (canary_id ensured first). 200 `{ ok, date, signedIn }`. */
import { z } from 'zod'
import { safeReturnTo } from '../../../composables/safe-return-to'
import { ensureDeviceCookie } from '../../utils/bff/canary'
import { isFormPost } from '../../utils/bff/forms'
import { callIam } from '../../utils/bff/iam-call'
import { formErrorCode, formReply, readInput } from '../../utils/bff/input'
import { defineBffHandler, relay } from '../../utils/bff/respond'

const bodySchema = z.object({
  email: z.string().max(320),
  password: z.string().max(1024),
  rememberUser: z.string().max(8).optional(),
  returnTo: z.string().max(512).optional(),
})

export default defineBffHandler(async (event) => {
  const { returnTo, ...input } = await readInput(event, bodySchema, '/login')
  await ensureDeviceCookie(event)
  const res = await callIam(event, { method: 'POST', path: '/login', body: input, cookies: ['canary_id'] })
  const body = relay(event, res)
  if (isFormPost(event)) {
    // the second-factor step is a script-driven page state: a no-JS post cannot carry its challenge on
    if (res.status === 200 && body.secondFactor) formReply('/login', 'second_factor_needs_js')
    const back = returnTo ? `/login?returnTo=${encodeURIComponent(safeReturnTo(returnTo))}` : '/login'
    formReply(res.status < 300 ? safeReturnTo(returnTo) : back, res.status < 300 ? undefined : formErrorCode(res.status))
  }
  return body
})
