/**
 * GET /api/auth/session: the browser's session state, always 200 unless rate limited:
 * `{ authenticated: true, userId, roles, expiresAt, email?, emailVerified, name? }`, `{ authenticated: false }`,
 * `{ authenticated: false, ended: true }` when the browser's session was there and the IAM ended it
 * (revoked, expired, reused: the page says so instead of showing a bare sign-in form), or
 * `{ authenticated: false, mfa: true, message }` while an MFA challenge is pending
 * (server/utils/bff/session-state.ts).
 */
import { defineBffHandler } from '../../utils/bff/respond'
import { readSessionState } from '../../utils/bff/session-state'

export default defineBffHandler((event) => readSessionState(event))
