import { failSuspended } from '../http/suspended'
import { ROUTES } from '../contract/routes'
import { visitLoginDevice } from '../features/users/login-device'
import { login } from '../features/users/login-service'
import { deletionPendingError } from '../http/account-deletion-outcomes'
import { authFail, sendTokens } from '../http/auth'
import { botCheckFail } from '../http/bot-check'
import { throwTooManyRequests } from '../http/rate-limit'
import { getJsonBody } from '../http/request'
import { body, counted, defineRoute, markup, signInGateWith } from '../http/route'
import { signInDevice } from '../http/sign-in'
import { failSsoRequired } from '../http/sso-required'
import { emitSignal } from '../lib/signals'

/** One body for an unknown address and a wrong password: nothing tells them apart. */
const INVALID_CREDENTIALS = 'Invalid email or password'

/**
 * POST /login: 200 tokens; 400 validation, or a bot check asked for after recent failures; 401
 * invalid credentials; 403 XSS/banned, an address whose domain requires its organization's sign-in
 * (`sso_required`, before any password check), or the right
 * password of an account scheduled for deletion (`deletionPending`, with the restore proof); 429
 * (IP limits, account delay).
 */
export default defineRoute(
  ROUTES.login,
  [
    // the device step reads the account of the address as typed in the same statement (login-device.ts)
    signInGateWith((ctx, facts, { event }) => visitLoginDevice(ctx, facts, getJsonBody<Record<string, unknown>>(event)?.email)),
    markup(['password']),
    body({ markupCheck: false }),
    // the per-IP budget, the IP + address limiter and the account delay, in order, in one store call (login-delay.ts)
    counted('loginIp'),
    counted('loginAccount'),
    counted('loginAccountDelay'),
  ],
  async ({ event, ctx, visitor, visited, body }) => {
    const { prefetched } = visited as Awaited<ReturnType<typeof visitLoginDevice>>
    const result = await login(ctx, {
      email: body.email,
      password: body.password,
      remember: body.rememberUser === 'on',
      botProof: body.botProof,
      prefetched,
      ...signInDevice(event, visitor!),
    })
    // refused by a limiter before anything else: not a login outcome (/metrics)
    if (!result.ok && result.code === 'limited') throwTooManyRequests(result.decision)
    emitSignal({ kind: 'login', outcome: result.ok ? 'ok' : result.code })
    if (!result.ok) {
      if (result.code === 'sso_required') return failSsoRequired(ctx, result)
      if (result.code === 'throttled') throwTooManyRequests({ ok: false, retryMs: result.retryMs, permanent: false })
      if (result.code === 'bot_check') return botCheckFail(result.check)
      if (result.code === 'banned') return failSuspended(result.suspension)
      // 403 like the ban: the credentials were right and the account may not sign in; the flag says why
      if (result.code === 'deletion_pending') {
        return authFail(403, 'deletion_pending', deletionPendingError(result.dueAt), {
          deletionPending: true,
          dueAt: result.dueAt.toISOString(),
          restoreProof: result.restore.proof,
          restoreProofExpiresAt: result.restore.expiresAt.toISOString(),
        })
      }
      return authFail(401, 'invalid_credentials', INVALID_CREDENTIALS)
    }
    // a second factor is due: the account limiter keeps counting until the sign-in completes
    if ('secondFactor' in result) return { ok: true as const, date: new Date().toISOString(), secondFactor: result.secondFactor }
    // success has forgiven this address's failures from this IP (login-service.ts); the IP budget keeps counting
    return sendTokens(event, ctx, result.pair, 200)
  },
)
