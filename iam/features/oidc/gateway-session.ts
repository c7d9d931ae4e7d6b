/**
 * The provider's browser session follows the person's session at the gateway
 * (docs/architecture.md, "Trust boundaries"). The provider keeps a session of its own (its cookie
 * on /oidc, up to oidc.ttl.sessionMs); without this rule a person who signed in at the gateway as
 * Y over a live provider session of X would have apps silently receive X while our pages show Y.
 *
 * The browser's `session` cookie (the IAM's refresh token, which the gateway keeps on `/` and
 * forwards with provider traffic) names the gateway session. Before the provider takes an
 * authorization or device request, a provider session of any other account (or of none: the
 * gateway session ended) is ended, through the library's own Session model. The provider then
 * finds no session and runs its sign-in step, where the interaction page continues as the
 * gateway's account or asks the person to sign in; `prompt=none` gets `login_required`. Ending it
 * there rather than at the interaction's end keeps the library's account switch (a sign-out
 * confirmation posted by the browser) out of the way. An impersonated session never counts:
 * nobody signs in to other apps as the person on their behalf.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Kysely } from 'kysely'
import type Provider from 'oidc-provider'
import type { Database } from '../../db/schema'
import { hashRefreshToken, isRefreshTokenShape } from '../sessions/refresh-token'

/** The cookie the gateway keeps the IAM session in (server/utils/bff/cookies.ts). */
export const GATEWAY_SESSION_COOKIE = 'session'

/**
 * The public id of the account whose live, not impersonated session `rawToken` belongs to; null
 * when there is none. One indexed read; a rotated token of a live session still names its account
 * (a refresh racing an authorization request must not ask the person to sign in again).
 */
export async function gatewaySessionAccount(db: Kysely<Database>, rawToken: string | undefined, now: number): Promise<string | null> {
  if (!rawToken || !isRefreshTokenShape(rawToken)) return null
  const row = await db
    .selectFrom('refresh_tokens as t')
    .innerJoin('session_families as f', 'f.id', 't.family_id')
    .innerJoin('users as u', 'u.id', 'f.user_id')
    .select('u.public_id')
    .where('t.token_hash', '=', hashRefreshToken(rawToken))
    .where('f.revoked_at', 'is', null)
    .where('f.impersonated_by', 'is', null)
    .where('f.refresh_expires_at', '>', new Date(now))
    .executeTakeFirst()
  return row ? String(row.public_id) : null
}

/** The provider's paths that start a sign-in with the provider's session (not their resume steps). */
const SIGN_IN_STARTS = new Set(['/auth', '/device'])

/** Whether the provider path (after the mount) starts a sign-in: an authorization or device request. */
export const startsProviderSignIn = (providerPath: string): boolean => SIGN_IN_STARTS.has(providerPath.split('?')[0]!)

/**
 * Ends the provider's session of this browser when it is not the gateway session's account; true
 * when one was ended. One read of the provider's session and one of the gateway's.
 */
export async function endProviderSessionOfAnotherAccount(
  provider: Provider,
  db: Kysely<Database>,
  http: { req: IncomingMessage; res: ServerResponse },
  now: number,
): Promise<boolean> {
  const session = await provider.Session.get(http as unknown as Parameters<typeof provider.Session.get>[0])
  if (!session.accountId) return false
  // the gateway's cookie carries no signature of the provider's cookie keys
  const gatewayCookie = provider.createContext(http.req, http.res).cookies.get(GATEWAY_SESSION_COOKIE, { signed: false })
  if ((await gatewaySessionAccount(db, gatewayCookie, now)) === session.accountId) return false
  await session.destroy()
  return true
}
