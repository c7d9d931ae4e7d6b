/** POST /api/auth/totp/recovery-codes (signed in, no body) -> IAM POST /auth/totp/recovery-codes: `{ data: { recoveryCodes } }`, shown once. */
import { defineBffHandler, relay } from '../../../utils/bff/respond'
import { callAuthedRoute } from '../../../utils/bff/session'

export default defineBffHandler(async (event) => relay(event, await callAuthedRoute(event, 'totpRecoveryCodes', {})))
