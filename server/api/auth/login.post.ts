/**
 * POST /api/auth/login -> IAM POST /login (canary_id ensured first). 200 `{ ok, date, signedIn }`.
 * The right password of an account scheduled for deletion is 403 `{ deletionPending, dueAt }`: its
 * restore proof goes into a cookie (utils/bff/restore-proof.ts) for POST /api/auth/restore-link.
 * An address whose organization requires its own sign-in is 403 `sso_required` with `connectionId`;
 * a no-JS post goes on to that connection's start.
 */
import { safeReturnTo } from '../../../composables/safe-return-to'
import { ssoRequiredConnection, ssoStartPath } from '../../../composables/sso-required'
import { isFormPost } from '../../utils/bff/forms'
import { formErrorCode, formReply, isBotCheckRefusal, retryOf } from '../../utils/bff/input'
import { bffRedirect, defineBffHandler } from '../../utils/bff/respond'
import { keepRestoreProof } from '../../utils/bff/restore-proof'
import { relaySignIn } from '../../utils/bff/sign-in'

export default defineBffHandler(async (event) => {
  const { res, body, returnTo } = await relaySignIn(event, 'login')
  const pending = keepRestoreProof(event, res)
  if (isFormPost(event)) {
    // the address's domain signs in through its organization's identity provider only: on to its start
    const sso = ssoRequiredConnection(res)
    if (sso) bffRedirect(ssoStartPath(sso, safeReturnTo(returnTo)), false)
    // the second-factor step is a script-driven page state: a no-JS post cannot carry its challenge on
    if (res.status === 200 && body.secondFactor) formReply('/login', 'second_factor_needs_js')
    const back = returnTo ? `/login?returnTo=${encodeURIComponent(safeReturnTo(returnTo))}` : '/login'
    // the page says the date and offers the restore link (its form posts with the cookie set here)
    if (pending) formReply(`${back}${back.includes('?') ? '&' : '?'}due=${encodeURIComponent(pending.dueAt)}`, 'deletion_pending')
    // asked for the proof-of-work check after recent failures: a page without JavaScript cannot solve it, the page says so
    if (isBotCheckRefusal(res)) formReply(back, 'bot_check_login_needs_js')
    formReply(res.status < 300 ? safeReturnTo(returnTo) : back, res.status < 300 ? undefined : formErrorCode(res.status), retryOf(res))
  }
  return body
})
