import { ROUTES } from '../../../contract/routes'
import { startCustomMfa } from '../../../features/mfa/custom'
import { CHANGE_EMAIL_REASON } from '../../../features/mfa/purposes'
import { failAction } from '../../../http/account-action-outcomes'
import { authFail } from '../../../http/auth'
import { requireRecentSignIn } from '../../../http/reauthenticate'
import { okEnvelope } from '../../../http/respond'
import { body, check, counted, defineRoute, params } from '../../../http/route'

const invalidReason = (): never => authFail(400, 'validation_failed', 'Invalid reason', { fields: { reason: 'Expected 3-64 of A-Z, 0-9 and _, not a reserved name' } })

/**
 * POST /custom/mfa/:reason (full authentication): mails a link and code for the action `reason`.
 * 200 `{ ok, date, data: { reason, expiresAt, sentTo } }`; 400 bad reason or body; 401; 403; 429; 500.
 */
export default defineRoute(
  ROUTES.customMfa,
  [
    // the params schema refuses reserved names too (contract/inputs.ts isCustomReason)
    params(invalidReason),
    // an email change moves where recovery mail goes: it needs a recent sign-in proof
    check(({ event, params }) => {
      if ((params as { reason: string }).reason === CHANGE_EMAIL_REASON) requireRecentSignIn(event)
    }),
    body(),
    // the mail is counted per user and the link per IP by the feature (features/mfa/custom.ts)
    counted('emails'),
    counted('links'),
  ],
  async ({ ctx, user, ip, params, body, actor }) => {
    const result = await startCustomMfa(ctx, { user, reason: params.reason, note: body.note || undefined, ipAddress: ip, requestLocale: actor.locale })
    if (!result.ok) return failAction(result)
    return okEnvelope({ reason: result.reason, expiresAt: result.expiresAt, sentTo: result.sentTo })
  },
)
