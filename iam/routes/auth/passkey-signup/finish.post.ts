import { ROUTES } from '../../../contract/routes'
import { finishPasskeySignup } from '../../../features/users/passkey-signup'
import { authFail, sendTokens } from '../../../http/auth'
import { body, defineRoute, limit, signInGate } from '../../../http/route'
import { signInDevice } from '../../../http/sign-in'

/**
 * POST /auth/passkey-signup/finish `{ ceremonyId, credential, rememberUser? }` (canary_id
 * required, the device that asked for the options): 201 tokens, as a passkey sign-in answers; 400
 * validation, a ceremony unknown, used, expired or another device's, or an answer that does not
 * verify; 403 XSS / banned device; 409 the address has an account now, or the passkey is
 * registered already; 429 the login's per-IP budget.
 */
export default defineRoute(ROUTES.passkeySignupFinish, [signInGate, body(), limit('loginIp', ({ ip }) => ({ ip }))], async ({ event, ctx, visitor, body }) => {
  const result = await finishPasskeySignup(ctx, { ceremonyId: body.ceremonyId, credential: body.credential, remember: body.rememberUser === 'on', ...signInDevice(event, visitor!) })
  if (result.ok) return sendTokens(event, ctx, result.pair, 201)
  switch (result.code) {
    case 'ceremony_invalid':
      return authFail(400, 'passkey_signup_ceremony_invalid', 'This sign-up has expired or was used: ask for a new code')
    case 'invalid_response':
      return authFail(400, 'passkey_unverified', 'The passkey could not be verified; ask for a new code and try again')
    case 'already_registered':
      return authFail(409, 'passkey_already_registered', 'This passkey is already registered')
    case 'email_taken':
      return authFail(409, 'email_taken', 'This address has an account now: sign in instead')
  }
})
