/** POST /api/auth/passkeys/register/verify (signed in) `{ credential, name? }` -> IAM: `{ data: { passkey } }`. */
import { readIamBody } from '../../../../utils/bff/input'
import { defineBffHandler, relay } from '../../../../utils/bff/respond'
import { callAuthedRoute } from '../../../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const { body } = await readIamBody(event, 'passkeyRegisterVerify')
  return relay(event, await callAuthedRoute(event, 'passkeyRegisterVerify', { body }))
})
