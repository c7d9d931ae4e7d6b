/** POST /api/auth/passkeys/register/verify (signed in) `{ credential, name? }` -> IAM: `{ data: { passkey } }`. */
import { PASSKEY_ROUTES } from '../../../../../iam/contract/passkeys'
import { readInput } from '../../../../utils/bff/input'
import { defineBffHandler, relay } from '../../../../utils/bff/respond'
import { callAuthed } from '../../../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const body = await readInput(event, PASSKEY_ROUTES.passkeyRegisterVerify.body)
  return relay(event, await callAuthed(event, { method: 'POST', path: '/auth/passkeys/register/verify', body }))
})
