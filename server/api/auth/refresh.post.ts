/** POST /api/auth/refresh -> IAM POST /auth/user/refresh-session (shared per browser). 201 / 202 MFA / 401 / 429. */
import { refreshSession, SIGNED_OUT } from '../../utils/bff/session'
import { clearSessionCookies } from '../../utils/bff/cookies'
import { bffFail, defineBffHandler } from '../../utils/bff/respond'

export default defineBffHandler(async (event) => {
  const res = await refreshSession(event)
  if (res.status === 201 || res.status === 200) return { ok: true, date: new Date().toISOString(), signedIn: true }
  if (res.status === 202) bffFail(202, { ok: false, mfa: true, message: 'A login link has been sent to your email.' })
  if (res.status === 429) {
    const retry = res.headers.get('retry-after') ?? ''
    bffFail(429, { ok: false, error: 'Too many requests', retry: /^\d+$/.test(retry) ? Number(retry) : retry }, retry ? { 'retry-after': retry } : {})
  }
  if (res.status >= 500) bffFail(502, { ok: false, error: 'The sign-in service failed. Please try again.' })
  clearSessionCookies(event)
  bffFail(401, SIGNED_OUT)
})
