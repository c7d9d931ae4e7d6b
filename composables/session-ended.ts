/**
 * Why a session this browser had was ended, in words, for the page the person lands on. The BFF
 * turns the IAM's 401 (its `code`, and `revokedFor` with session_revoked) into one of these short
 * codes (server/utils/bff/session.ts endedWhy); the sign-in page reads it from `?ended=`. Pure:
 * shared by the server and the pages.
 */

export type SessionEndedWhy = 'copied' | 'password' | 'email' | 'elsewhere' | 'expired'

const GENERIC = 'Your session has ended. Please sign in again.'

const SENTENCES: Record<SessionEndedWhy, string> = {
  copied:
    'Your session was ended for your safety: its sign-in was used from another place as well, as if it had been copied. Sign in again; if this surprises you, change your password.',
  password: 'Your session was ended because the password was changed. Sign in with the new password.',
  email: 'Your session was ended because the account’s email address changed. Please sign in again.',
  elsewhere: 'This session was signed out from another device. Please sign in again.',
  expired: 'Your session expired. Please sign in again.',
}

/** The IAM's 401 body of an ended session as a page code; undefined when it says nothing more specific. */
export function endedWhy(body: unknown): SessionEndedWhy | undefined {
  if (!body || typeof body !== 'object') return undefined
  const { code, revokedFor } = body as { code?: unknown; revokedFor?: unknown }
  if (code === 'refresh_token_reused') return 'copied'
  if (code === 'session_expired') return 'expired'
  if (code !== 'session_revoked') return undefined
  switch (revokedFor) {
    case 'refresh_token_reused':
      return 'copied'
    case 'password_changed':
    case 'password_reset':
      return 'password'
    case 'email_changed':
    case 'email_change_undone':
      return 'email'
    case 'user_revoked':
    case 'user_revoked_others':
      return 'elsewhere'
    default:
      return undefined
  }
}

/** The sentence for `?ended=<code>` (any other value: the general one). */
export function sessionEndedMessage(code: unknown): string {
  return typeof code === 'string' && Object.hasOwn(SENTENCES, code) ? SENTENCES[code as SessionEndedWhy] : GENERIC
}
