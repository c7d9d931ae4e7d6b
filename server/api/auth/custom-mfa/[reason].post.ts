/**
 * POST /api/auth/custom-mfa/:reason `{ note? }` -> IAM POST /custom/mfa/:reason (full authentication):
 * mails a confirmation link + code for a sensitive action (e.g. PAYMENT_CONFIRM; `change_email` starts the email change).
 * 200 `{ ok, date, data: { reason, expiresAt, sentTo } }`.
 */
import { readIamBody, readIamParams } from '../../../utils/bff/input'
import { defineBffHandler, relay } from '../../../utils/bff/respond'
import { callAuthedRoute } from '../../../utils/bff/session'

export default defineBffHandler(async (event) => {
  // the reason is checked by the IAM route's own params schema (route table), before any IAM call
  const params = readIamParams(event, 'customMfa', 'Unknown action.')
  const { body } = await readIamBody(event, 'customMfa')
  const res = await callAuthedRoute(event, 'customMfa', { params, body })
  return relay(event, res)
})
