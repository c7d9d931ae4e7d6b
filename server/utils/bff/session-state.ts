/**
 * The browser's session as the gateway knows it: read from IAM GET /secret/accesstoken/metadata
 * (so a session revoked anywhere reads as signed out on the next request), rotated here when the
 * IAM says it is due. GET /api/auth/session answers with it, and a team's own server routes read
 * it through getUser / requireUser (server/utils/auth-user.ts).
 */
import type { H3Event } from 'h3'
import { clearSessionCookies, currentCookie } from './cookies'
import { BffReply } from './respond'
import { callAuthedRoute, refreshSession } from './session'

interface Metadata {
  payload?: { sub?: unknown; exp?: unknown }
  roles?: unknown
  shouldRotate?: unknown
  email?: unknown
  emailVerified?: unknown
  name?: unknown
  message?: unknown
}

export interface SessionUser {
  userId: string | null
  roles: string[]
  /** when the current access token expires (ISO 8601) */
  expiresAt: string | null
  email: string | null
  emailVerified: boolean
  name: string | null
}

export type SessionState =
  | ({ authenticated: true } & SessionUser)
  | { authenticated: false }
  /** the browser had a session and the IAM ended it (revoked, expired, reused) */
  | { authenticated: false; ended: true }
  /** an emailed confirmation is pending */
  | { authenticated: false; mfa: true; message: string }

const ENDED = { authenticated: false, ended: true } as const
const str = (value: unknown) => (typeof value === 'string' ? value : undefined)

declare module 'h3' {
  interface H3EventContext {
    /** the session state read once per request (readSessionState) */
    bffSessionState?: Promise<SessionState>
  }
}

async function read(event: H3Event): Promise<SessionState> {
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
    if (error.status === 202) return { authenticated: false, mfa: true, message: String(error.body.message ?? '') }
    if (error.status === 401) return ENDED
    throw error
  }
}

/** The session state of this request's browser; read from the IAM at most once per request. */
export function readSessionState(event: H3Event): Promise<SessionState> {
  return (event.context.bffSessionState ??= read(event))
}
