import { ROUTES } from '../contract/routes'
import { requestLocale } from '../http/link-submission'
import { signup } from '../features/users/signup-service'
import { authFail, sendTokens } from '../http/auth'
import { withWarnings } from '../http/respond'
import { botCheck } from '../http/bot-check'
import { body, counted, defineRoute, limit, markup, signInGate } from '../http/route'
import { signInDevice } from '../http/sign-in'
import { ssoRequiredFor } from '../features/enterprise/sso-required'
import { failSsoRequired } from '../http/sso-required'

/**
 * POST /signup: 201 tokens (and `warnings` when the breach check was skipped); 400 validation; 403
 * XSS/banned, or an address whose domain requires its organization's sign-in (`sso_required`); 409
 * email taken; 429.
 */
export default defineRoute(
  ROUTES.signup,
  [signInGate, markup(['password', 'confirmedPassword']), botCheck, limit('signup', ({ ip }) => ({ ip })), body({ markupCheck: false }), counted('mailbox')],
  async ({ event, ctx, visitor, body }) => {
    // first: the domain alone decides, before the passwords or the address are looked at (http/sso-required.ts)
    const sso = await ssoRequiredFor(ctx.db, body.email)
    if (sso) return failSsoRequired(ctx, sso)
    if (body.password !== body.confirmedPassword) {
      return authFail(400, 'passwords_mismatch', 'Passwords do not match', { fields: { confirmedPassword: 'Passwords do not match' } })
    }
    const result = await signup(ctx, {
      email: body.email,
      password: body.password,
      name: body.name,
      remember: body.rememberUser === 'on',
      ...signInDevice(event, visitor!),
      requestLocale: requestLocale(event),
      invitationToken: body.invitationToken,
    })
    if (!result.ok) {
      if (result.code === 'email_taken') return authFail(409, 'email_taken', 'Email already registered')
      if (result.code === 'email_invalid') return authFail(400, 'validation_failed', 'Validation failed', { fields: { email: result.reason } })
      if (result.code === 'breach_check_unavailable') return authFail(503, 'breach_check_unavailable', 'Service unavailable', { fields: { password: result.reason } })
      return authFail(400, 'password_rejected', 'Validation failed', { fields: { password: result.reason } })
    }
    return withWarnings(sendTokens(event, ctx, result.pair, 201), result.warnings)
  },
)
