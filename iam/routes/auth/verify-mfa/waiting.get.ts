import { ROUTES } from '../../../contract/routes'
import { waitingMfa } from '../../../features/mfa/verify-adaptive'
import { getSessionCookie } from '../../../http/cookies'
import { authFail } from '../../../http/auth'
import { defineRoute, limit } from '../../../http/route'

/**
 * GET /auth/verify-mfa/waiting (session cookie): the emailed-code challenge waiting on this
 * session, so the page that meets it can say where the code went and why. 200; 404 none waits; 429.
 */
export default defineRoute(ROUTES.waitingMfa, [limit('links', ({ ip }) => ({ ip, on: 'ip' }))], async ({ ctx, event }) => {
  const waiting = await waitingMfa(ctx, getSessionCookie(event) ?? null)
  if (!waiting) return authFail(404, 'no_code_waiting', 'No code is waiting for this session')
  return { ok: true as const, data: waiting }
})
