/**
 * POST /api/auth/passkey-signup/start `{ email, name?, termsConsent, botProof? }` -> IAM POST
 * /auth/passkey-signup/start (canary_id ensured first: the ceremony is bound to this browser).
 * 200 with one body whether or not the address has an account; 403 `sso_required`. JSON only: a
 * passkey needs the page's script, so there is no form post to answer.
 */
import { ensureDeviceCookie } from '../../../utils/bff/canary'
import { callIamRoute } from '../../../utils/bff/iam-call'
import { readIamBody } from '../../../utils/bff/input'
import { defineBffHandler, relay } from '../../../utils/bff/respond'

export default defineBffHandler(async (event) => {
  const { body } = await readIamBody(event, 'passkeySignupStart')
  await ensureDeviceCookie(event)
  return relay(event, await callIamRoute(event, 'passkeySignupStart', { body, cookies: ['canary_id'] }))
})
