/**
 * POST /api/auth/logout -> IAM POST /auth/logout (Bearer + session + canary_id). The browser's
 * cookies are cleared whatever the IAM answers: signing out must always work from the user's side.
 */
import { clearSessionCookies, currentCookie, forwardSetCookies } from '../../utils/bff/cookies'
import { isFormPost } from '../../utils/bff/forms'
import { callIamRoute } from '../../utils/bff/iam-call'
import { formReply } from '../../utils/bff/input'
import { BffReply, defineBffHandler } from '../../utils/bff/respond'

export default defineBffHandler(async (event) => {
  if (currentCookie(event, 'session')) {
    try {
      const res = await callIamRoute(event, 'logout', {
        // The IAM revokes by the refresh cookie; requireAccessToken checks presence, not validity
        // (IAM spec, Authentication 2), so an expired access cookie must not block the sign-out.
        bearer: currentCookie(event, 'access') ?? 'expired',
        cookies: ['session', 'canary_id'],
      })
      forwardSetCookies(event, res.setCookies)
    } catch (error) {
      if (!(error instanceof BffReply)) throw error
    }
  }
  clearSessionCookies(event)
  if (isFormPost(event)) formReply('/login?signedOut=1')
  return { ok: true, date: new Date().toISOString() }
})
