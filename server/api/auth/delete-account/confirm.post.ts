/**
 * POST /api/auth/delete-account/confirm?token&random&reason&visitor (no body) -> IAM POST
 * /auth/delete-account/confirm. Once confirmed, every session of the account is revoked at the
 * IAM: this browser's cookies are cleared too, so it shows the signed-out page at once.
 */
import { clearSessionCookies } from '../../../utils/bff/cookies'
import { callIamRoute } from '../../../utils/bff/iam-call'
import { readLinkQuery } from '../../../utils/bff/input'
import { defineBffHandler, relay } from '../../../utils/bff/respond'

export default defineBffHandler(async (event) => {
  const query = readLinkQuery(event, 'confirmDeleteAccount')
  const res = await callIamRoute(event, 'confirmDeleteAccount', { query, cookies: ['canary_id'] })
  const body = relay(event, res)
  if (res.status < 300) clearSessionCookies(event)
  return body
})
