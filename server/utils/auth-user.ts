/**
 * The signed-in user for a team's own server routes, when their Nuxt app extends this gateway
 * (docs/gateway.md, "Use it in your own Nuxt app"). Nuxt imports server/utils of a layer into every server
 * route, so a route of the team's app writes:
 *
 *   export default defineEventHandler(async (event) => {
 *     const user = await requireUser(event)   // 401 JSON when nobody is signed in
 *     return { hello: user.email }
 *   })
 *
 * Both read the session the way GET /api/auth/session does (the IAM is asked, at most once per
 * request, so a session revoked anywhere is refused at once; a due access token is renewed and
 * its cookies set on this answer).
 */
import { createError, type H3Event } from 'h3'
import { SIGNED_OUT } from './bff/session'
import { readSessionState, type SessionState } from './bff/session-state'

/** The signed-in user: id (the IAM's), roles, email, whether it is confirmed, name, when the access token expires. */
export type SessionUser = Omit<Extract<SessionState, { authenticated: true }>, 'authenticated'>


/** The signed-in user, or null. */
export async function getUser(event: H3Event): Promise<SessionUser | null> {
  const state = await readSessionState(event)
  if (!state.authenticated) return null
  const { authenticated: _authenticated, ...user } = state
  return user
}

/** The signed-in user; otherwise the request ends with 401 `{ ok: false, signedOut: true, error }`. */
export async function requireUser(event: H3Event): Promise<SessionUser> {
  const user = await getUser(event)
  if (user) return user
  throw createError({ statusCode: 401, statusMessage: 'Unauthorized', data: SIGNED_OUT })
}
