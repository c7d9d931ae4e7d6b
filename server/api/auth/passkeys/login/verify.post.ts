/**
 * POST /api/auth/passkeys/login/verify `{ credential, rememberUser? }` -> IAM POST
 * /auth/passkeys/login/verify (canary_id): answers like the password login, 200 `{ ok, date,
 * signedIn }` with the tokens in the session cookies. The body's shape is the route table's schema.
 */
import { PASSKEY_ROUTES } from '../../../../../iam/contract/passkeys'
import { callIam } from '../../../../utils/bff/iam-call'
import { readInput } from '../../../../utils/bff/input'
import { defineBffHandler, relay } from '../../../../utils/bff/respond'

export default defineBffHandler(async (event) => {
  const body = await readInput(event, PASSKEY_ROUTES.passkeyLoginVerify.body)
  return relay(event, await callIam(event, { method: 'POST', path: '/auth/passkeys/login/verify', body, cookies: ['canary_id'] }))
})
