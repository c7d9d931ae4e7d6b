import { ROUTES } from '../../../contract/routes'
import { signInWithEmailLink } from '../../../features/users/email-sign-in'
import { answerEmailSignIn } from '../../../http/email-sign-in'
import { defineRoute, limit, query, signInGate } from '../../../http/route'
import { signInDevice } from '../../../http/sign-in'

/**
 * POST /auth/email-sign-in/link?token&random&reason&visitor (canary_id required): signs in with the
 * emailed link in the browser that asked for it. 200 tokens, or a second-factor challenge; 400 a
 * bad, used or expired link; 403 another browser (the link stays usable where it was asked), a
 * banned device or a suspended account; 429 (the login's per-IP budget).
 */
export default defineRoute(ROUTES.emailSignInLink, [signInGate, query(), limit('loginIp', ({ ip }) => ({ ip }))], async ({ event, ctx, visitor, query }) => {
  const result = await signInWithEmailLink(ctx, { params: query, ...signInDevice(event, visitor!) })
  return answerEmailSignIn(event, ctx, result)
})
