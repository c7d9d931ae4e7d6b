/**
 * The browser's session state as GET /api/auth/session answers it, read for one request:
 * `{ authenticated: true, userId, roles, expiresAt, email, emailVerified, name, locale, timeZone, picture }`, `{ authenticated: false }`,
 * `{ authenticated: false, ended: true, why? }` when the browser's session was there and the IAM ended it
 * (revoked, expired, reused; `why`: composables/session-ended.ts), or `{ authenticated: false, mfa: true, message }` while an MFA challenge
 * is pending. Backed by IAM GET /secret/accesstoken/metadata, so a revoked session reads as signed
 * out on the next call, and `shouldRotate` triggers the refresh here (its cookies go out with this
 * request's answer, a page as well as the JSON route). Throws BffReply for a rate limit or an IAM failure.
 */
import type { H3Event } from 'h3'
import { isLocale, type Locale } from '../../../iam/contract/locales'
import { GRAVATAR_ORIGIN } from '../../../iam/contract/profile-picture'
import { clearSessionCookies, currentCookie } from './cookies'
import { BffReply } from './respond'
import { impersonatingAdminEmail } from './impersonation'
import { callAuthedRoute, refreshSession } from './session'
import { endedWhy, type SessionEndedWhy } from '../../../composables/session-ended'

interface Metadata {
  payload?: { sub?: unknown; exp?: unknown; act?: unknown }
  roles?: unknown
  shouldRotate?: unknown
  email?: unknown
  emailVerified?: unknown
  name?: unknown
  locale?: unknown
  timeZone?: unknown
  picture?: { source?: unknown; gravatarUrl?: unknown }
  message?: unknown
}

/**
 * Where the pages load the account's picture from (docs/accounts.md "Profile picture"): the
 * gateway's GET /api/auth/picture for an upload, Gravatar's address when chosen (the page CSP's
 * img-src allows https://gravatar.com), null for none (the pages show initials).
 */
export const PICTURE_PATH = '/api/auth/picture'

function pictureOf(picture: Metadata['picture']): { source: 'upload' | 'gravatar'; src: string } | null {
  if (picture?.source === 'upload') return { source: 'upload', src: PICTURE_PATH }
  const url = picture?.gravatarUrl
  if (picture?.source === 'gravatar' && typeof url === 'string' && url.startsWith(`${GRAVATAR_ORIGIN}/avatar/`)) return { source: 'gravatar', src: url }
  return null
}

export type SessionState =
  | {
      authenticated: true
      userId: string | null
      roles: string[]
      expiresAt: string | null
      email: string | null
      emailVerified: boolean
      name: string | null
      /** the language the account chose for its mails (docs/i18n.md); null when none */
      locale: Locale | null
      /** the IANA time zone of the account's mails (its owner's choice, else the latest sign-in's browser); null when none */
      timeZone: string | null
      /** the account's picture: where to load it from; null for none */
      picture: { source: 'upload' | 'gravatar'; src: string } | null
      /** signed in on the account's behalf by a platform administrator (the token's `act`): who, for the banner */
      impersonatedBy?: { email: string | null }
    }
  | { authenticated: false; ended?: true; why?: SessionEndedWhy; mfa?: true; message?: string }

const ENDED = { authenticated: false, ended: true } as const
/** ENDED with why the IAM ended it, when its 401 says */
function ended(iamBody: unknown): SessionState {
  const why = endedWhy(iamBody)
  return why ? { ...ENDED, why } : ENDED
}
const MFA_MESSAGE = 'A login link has been sent to your email.'

const str = (value: unknown) => (typeof value === 'string' ? value : undefined)

async function read(event: H3Event): Promise<SessionState> {
  if (!currentCookie(event, 'session')) return { authenticated: false }
  try {
    const res = await callAuthedRoute<'accessTokenMetadata', Metadata>(event, 'accessTokenMetadata', {})
    if (res.status === 202) return { authenticated: false, mfa: true, message: str(res.body?.message) ?? MFA_MESSAGE }
    if (res.status !== 200 || !res.body) return { authenticated: false }
    const body = res.body
    if (body.shouldRotate === true && event.context.bffRefreshed !== true) {
      const rotated = await refreshSession(event)
      if (rotated.status === 202) return { authenticated: false, mfa: true, message: MFA_MESSAGE }
      if (rotated.status === 401) {
        clearSessionCookies(event)
        return ended(rotated.body)
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
      locale: isLocale(body.locale) ? body.locale : null,
      timeZone: str(body.timeZone) ?? null,
      picture: pictureOf(body.picture),
      // the IAM signed `act` into the token (RFC 8693 section 4.1); the email is the gateway's note of who started it
      ...(body.payload?.act && typeof body.payload.act === 'object' ? { impersonatedBy: { email: impersonatingAdminEmail(event) } } : {}),
    }
  } catch (error) {
    if (!(error instanceof BffReply)) throw error
    if (error.status === 202) return { authenticated: false, mfa: true, message: str(error.body.message) ?? MFA_MESSAGE }
    if (error.status === 401) return { ...ENDED, ...(typeof error.body.ended === 'string' ? { why: error.body.ended as SessionEndedWhy } : {}) }
    throw error
  }
}

declare module 'h3' {
  interface H3EventContext {
    /** this request's session state, read once (readSessionState) */
    bffSessionState?: Promise<SessionState>
  }
}

/**
 * The session state of this request's browser, read from the IAM at most once per request: the
 * signed-in page redirect, GET /api/auth/session and a team's getUser/requireUser share it.
 */
export function readSessionState(event: H3Event): Promise<SessionState> {
  return (event.context.bffSessionState ??= read(event))
}
