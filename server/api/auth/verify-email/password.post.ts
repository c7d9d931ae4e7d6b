/**
 * POST /api/auth/verify-email/password?token&random&reason&visitor `{ password }` or
 * `{ newPassword, confirmedPassword }` -> IAM POST /auth/verify-email/password: a verification link
 * opened on another device than the one that asked for it. With a new password every session ends,
 * this browser's too: a no-JavaScript form goes on to the sign-in page.
 */
import { isFormPost } from '../../../utils/bff/forms'
import { callIamRoute } from '../../../utils/bff/iam-call'
import { formErrorCode, formReply, readIamBody, readLinkQuery } from '../../../utils/bff/input'
import { defineBffHandler, relay } from '../../../utils/bff/respond'

export default defineBffHandler(async (event) => {
  const query = readLinkQuery(event, 'verifyEmailWithPassword')
  const back = `/auth/verify-email?${new URLSearchParams(query).toString()}`
  const { body } = await readIamBody(event, 'verifyEmailWithPassword', { formPath: back })
  const res = await callIamRoute(event, 'verifyEmailWithPassword', { query, body, cookies: ['canary_id'] })
  const reply = relay(event, res)
  if (isFormPost(event)) {
    const signedOut = (res.body as { data?: { signedOut?: boolean } } | undefined)?.data?.signedOut === true
    formReply(res.status < 300 ? (signedOut ? '/login?verified=1' : '/account?verified=1') : back, res.status < 300 ? undefined : formErrorCode(res.status))
  }
  return reply
})
