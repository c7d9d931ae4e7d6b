import { ROUTES } from '../../contract/routes'
import { changeEmail } from '../../features/account-actions/email-change'
import { failAction } from '../../http/account-action-outcomes'
import { sendTokens } from '../../http/auth'
import { invalidLink } from '../../http/link-submission'
import { body, counted, defineRoute, limit, query } from '../../http/route'

/**
 * POST /update/email (full authentication, change_email link in the query, `{ code, newEmail }`):
 * 200 updated, new tokens for this session, every other session revoked; 400 validation, bad link
 * or address in use; 401 wrong or expired code; 403 banned or XSS; 429; 500.
 */
export default defineRoute(
  ROUTES.updateEmail,
  [query(invalidLink), body(), limit('codes', ({ ip }) => ({ ip, on: 'ip' })), counted('mailbox')],
  async ({ event, ctx, user, actor, query, body }) => {
    const signInProofAt = event.context.signInProofAt ?? ctx.now()
    const result = await changeEmail(ctx, { proof: { kind: 'emailed', params: query, code: body.code }, newEmail: body.newEmail, user, actor, signInProofAt })
    if (!result.ok) return failAction(result)
    return sendTokens(event, ctx, result.pair, 200)
  },
)
