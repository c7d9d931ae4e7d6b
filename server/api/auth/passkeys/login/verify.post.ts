/**
 * POST /api/auth/passkeys/login/verify `{ credential, rememberUser? }` -> IAM POST
 * /auth/passkeys/login/verify (canary_id): answers like the password login, 200 `{ ok, date,
 * signedIn }` with the tokens in the session cookies. The body's shape is the route table's schema.
 */
import { callIamRoute } from '../../../../utils/bff/iam-call'
import { readIamBody } from '../../../../utils/bff/input'
import { defineBffHandler, relay } from '../../../../utils/bff/respond'

export default defineBffHandler(async (event) => {
  const { body } = await readIamBody(event, 'passkeyLoginVerify')
  return relay(event, await callIamRoute(event, 'passkeyLoginVerify', { body, cookies: ['canary_id'] }))
})
