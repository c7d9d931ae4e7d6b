/**
 * POST /api/auth/reset-password?token&random&reason&visitor `{ password, confirmedPassword, revokeApiTokens? }`
 * -> IAM POST /auth/reset-password (revokeApiTokens always sent as a boolean).
 */
import { z } from 'zod'
import { isFormPost } from '../../utils/bff/forms'
import { callIamRoute } from '../../utils/bff/iam-call'
import { formErrorCode, formReply, retryOf, readIamBody, readLinkQuery, withNotices } from '../../utils/bff/input'
import { defineBffHandler, relay, warningsOf } from '../../utils/bff/respond'

// JSON pages send a boolean; a no-JS form sends "on" for a checked box and nothing otherwise: the
// BFF reads both and sends the IAM the boolean its schema takes.
const revokeApiTokensField = { revokeApiTokens: z.union([z.boolean(), z.literal('on')]).optional() }

export default defineBffHandler(async (event) => {
  const query = readLinkQuery(event, 'resetPassword')
  const back = `/reset-password?${new URLSearchParams(query).toString()}`
  const { body: passwords, extra } = await readIamBody(event, 'resetPassword', { extra: revokeApiTokensField, formPath: back })
  const body = { ...passwords, revokeApiTokens: extra.revokeApiTokens === true || extra.revokeApiTokens === 'on' }
  const res = await callIamRoute(event, 'resetPassword', { query, body, cookies: ['canary_id'] })
  const reply = relay(event, res)
  if (isFormPost(event)) formReply(res.status < 300 ? withNotices('/login?reset=1', warningsOf(res.body)) : back, res.status < 300 ? undefined : formErrorCode(res.status), retryOf(res))
  return reply
})
