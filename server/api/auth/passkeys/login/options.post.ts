/**
 * POST /api/auth/passkeys/login/options -> IAM POST /auth/passkeys/login/options (canary_id
 * ensured first): `{ data: { options } }` for startAuthentication(), naming no account.
 */
import { ensureDeviceCookie } from '../../../../utils/bff/canary'
import { callIamRoute } from '../../../../utils/bff/iam-call'
import { defineBffHandler, relay } from '../../../../utils/bff/respond'

export default defineBffHandler(async (event) => {
  await ensureDeviceCookie(event)
  return relay(event, await callIamRoute(event, 'passkeyLoginOptions', { cookies: ['canary_id'] }))
})
