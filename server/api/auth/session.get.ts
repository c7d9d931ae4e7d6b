/**
 * GET /api/auth/session: the browser's session state, always 200 unless rate limited:
 * `{ authenticated: true, userId, roles, expiresAt, email?, emailVerified, name? }`, `{ authenticated: false }`,
 * `{ authenticated: false, ended: true }` when the browser's session was there and the IAM ended it
 * (revoked, expired, reused: the page says so instead of showing a bare sign-in form), or
 * `{ authenticated: false, mfa: true, message }` while an MFA challenge is pending. Backed by IAM
 * GET /secret/accesstoken/metadata, so a revoked session reads as signed out on the next call, and
 * `shouldRotate` triggers the refresh here.
 */
import { clearSessionCookies, currentCookie } from '../../utils/bff/cookies'
import { BffReply, defineBffHandler } from '../../utils/bff/respond'
import { callAuthedRoute, refreshSession } from '../../utils/bff/session'

interface Metadata {
  payload?: { sub?: unknown; exp?: unknown }
  roles?: unknown
  shouldRotate?: unknown
  email?: unknown
  emailVerified?: unknown
  name?: unknown
  message?: unknown
}

const ENDED = { authenticated: false, ended: true } as const

const str = (value: unknown) => (typeof value === 'string' ? value : undefined)

export default defineBffHandler(async (event) => {
  if (!currentCookie(event, 'session')) return { authenticated: false }
  try {
    const res = await callAuthedRoute<'accessTokenMetadata', Metadata>(event, 'accessTokenMetadata', {})
    if (res.status === 202) return { authenticated: false, mfa: true, message: str(res.body?.message) ?? 'A login link has been sent to your email.' }
    if (res.status !== 200 || !res.body) return { authenticated: false }
    const body = res.body
    if (body.shouldRotate === true && event.context.bffRefreshed !== true) {
      const rotated = await refreshSession(event)
      if (rotated.status === 202) return { authenticated: false, mfa: true, message: 'A login link has been sent to your email.' }
      if (rotated.status === 401) {
        clearSessionCookies(event)
        return ENDED
      }
    }
    const exp = body.payload?.exp
    return {
      authenticated: true,
      userId: str(body.payload?.sub) ?? null,
      roles: Array.isArray(body.roles) ? body.roles.filter((r): r is string => typeof r === 'string') : [],
      expiresAt: typeof exp === 'number' ? new Date(exp * 1000).toISOString() : null,
      email: str(body.email) ?? null,
      emailVerified: body.emailVerified === true,
      name: str(body.name) ?? null,
    }
  } catch (error) {
    if (!(error instanceof BffReply)) throw error
    if (error.status === 202) return { authenticated: false, mfa: true, message: error.body.message }
    if (error.status === 401) return ENDED
    throw error
  }
})
