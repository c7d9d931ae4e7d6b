/**
 * POST /api/auth/passkey-signup/options `{ email, code }` -> IAM POST /auth/passkey-signup/options
 * (canary_id): 200 `{ data: { options, ceremonyId } }` for startRegistration(); 401 `code_invalid`;
 * 429 `code_entry_locked`.
 */
import { ensureDeviceCookie } from '../../../utils/bff/canary'
import { callIamRoute } from '../../../utils/bff/iam-call'
import { readIamBody } from '../../../utils/bff/input'
import { defineBffHandler, relay } from '../../../utils/bff/respond'

export default defineBffHandler(async (event) => {
  const { body } = await readIamBody(event, 'passkeySignupOptions')
  await ensureDeviceCookie(event)
  return relay(event, await callIamRoute(event, 'passkeySignupOptions', { body, cookies: ['canary_id'] }))
})
