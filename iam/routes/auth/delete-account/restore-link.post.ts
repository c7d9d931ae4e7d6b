import { ROUTES } from '../../../contract/routes'
import { sendRestoreLink } from '../../../features/account-deletion/restore-link'
import { RESTORE_LINK_REFUSED } from '../../../http/account-deletion-outcomes'
import { okEnvelope } from '../../../http/respond'
import { answerFailure, body, counted, defineRoute, limit, signInGate } from '../../../http/route'

/**
 * POST /auth/delete-account/restore-link `{ restoreProof }` (no session: the proof POST /login
 * answered to the right password of an account scheduled for deletion, from this device): 200 a
 * new undo link was mailed, the older one ended; 400 no canary_id, or a bad, expired or used
 * proof; 403 banned device; 409 no longer scheduled; 410 past the undo window; 429; 503 the mail
 * failed. The proof is a random value, never rendered: no markup check.
 */
export default defineRoute(
  ROUTES.restoreLink,
  [signInGate, limit('links', ({ ip }) => ({ ip, on: 'ip' })), body({ markupCheck: false }), counted('emails'), counted('mailbox')],
  async ({ ctx, ip, visitor, body, actor }) => {
    const result = await sendRestoreLink(ctx, { proof: body.restoreProof, visitorRowId: visitor!.id, ipAddress: ip, requestLocale: actor.locale, requestTimeZone: actor.timeZone })
    if (!result.ok) return answerFailure(RESTORE_LINK_REFUSED, result)
    return okEnvelope({ sentTo: result.sentTo, dueAt: result.dueAt.toISOString() })
  },
)
