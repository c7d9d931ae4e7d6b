/** POST /api/auth/refresh -> IAM POST /auth/user/refresh-session (shared per browser). 201 / 202 MFA / 401 / 429. */
import { failRefreshBeyondMfa, refreshSession } from '../../utils/bff/session'
import { bffFail, defineBffHandler } from '../../utils/bff/respond'

export default defineBffHandler(async (event) => {
  const res = await refreshSession(event)
  if (res.status === 201 || res.status === 200) return { ok: true, date: new Date().toISOString(), signedIn: true }
  if (res.status === 202) bffFail(202, { ok: false, mfa: true, message: 'A login link has been sent to your email.', code: 'mfa_required' })
  failRefreshBeyondMfa(event, res)
})
