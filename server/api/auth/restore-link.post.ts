/**
 * POST /api/auth/restore-link (no body; the restore proof is this browser's cookie, set by
 * POST /api/auth/login) -> IAM POST /auth/delete-account/restore-link: mails a new restore link to
 * an account scheduled for deletion. 200 `{ data: { sentTo, dueAt } }` (`sentTo` masked); 400 no
 * proof, or one expired or used; 409 no longer scheduled; 410 too late; 429; 503.
 */
import { callIamRoute } from '../../utils/bff/iam-call'
import { isFormPost } from '../../utils/bff/forms'
import { formErrorCode, formReply, retryOf } from '../../utils/bff/input'
import { bffFail, defineBffHandler, relay } from '../../utils/bff/respond'
import { clearRestoreProof, readRestoreProof } from '../../utils/bff/restore-proof'

const EXPIRED = 'This request for the restore link has expired or was already used. Sign in again to ask for it.'

/** The sign-in page's `?error=` codes for a no-JS post (composables/form-messages.ts). */
const FORM_CODES: Record<number, string> = { 400: 'restore_expired', 409: 'restore_not_pending', 410: 'restore_late' }

export default defineBffHandler(async (event) => {
  const form = isFormPost(event)
  const restoreProof = readRestoreProof(event)
  if (!restoreProof) {
    if (form) formReply('/login', 'restore_expired')
    bffFail(400, { ok: false, error: EXPIRED, code: 'restore_proof_invalid' })
  }
  const res = await callIamRoute(event, 'restoreLink', { body: { restoreProof }, cookies: ['canary_id'] })
  // spent, or refused for good: nothing is left to ask with it; a wait (429) or an outage keeps it
  if (res.status !== 429 && res.status < 500) clearRestoreProof(event)
  const body = relay(event, res)
  if (form) {
    if (res.status === 200) formReply('/login?restore=sent')
    formReply('/login', FORM_CODES[res.status] ?? formErrorCode(res.status), retryOf(res))
  }
  return body
})
