/**
 * Accounts as the OpenID Provider sees them: `sub` is users.public_id (never the serial key), the
 * claims are the ones the scopes ask for (OIDC Core 5.4), and a banned account has no claims, so
 * the provider refuses its grants. Account events (sign out everywhere, a password change or reset,
 * a ban) end the account's grants at once: revokeAccountGrants, which registerOidcSessionListeners
 * hands to the context's session hooks (the sessions feature does not know the provider).
 */
import { sql, type Kysely, type Transaction } from 'kysely'
import type { Database } from '../../db/schema'
import { isDeletionPending } from '../account-deletion/deletion-state'
import { orgClaimsOfUser } from '../organizations/org-claim'
import type { SessionHooks } from '../sessions/session-hooks'
import { takeReadAhead } from './request-memo'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

export const isPublicId = (value: string) => UUID.test(value)

export interface OidcAccount {
  [key: string]: unknown
  accountId: string
  claims(use: string, scope: string): Promise<{ sub: string; [claim: string]: unknown }>
}

/** What an account's claims and its ban are read from. */
export interface OidcAccountRow {
  id: number
  public_id: string
  email: string
  name: string
  email_verified: boolean
  banned_until: Date | null
  deletion_due_at: Date | null
  /** the language the owner chose (iam/contract/locales.ts), released as `locale` (OIDC Core 5.1) */
  locale: string | null
}

/** The key an account read ahead with a token (adapter.ts) is remembered under for the request. */
export const accountKey = (sub: string) => `Account\u0000${sub}`

/** The columns of OidcAccountRow on a `users as u` joined to a token row (adapter.ts). */
export const ACCOUNT_READ_AHEAD = [
  sql<number | null>`u.id`.as('accountId'),
  sql<string | null>`u.public_id::text`.as('accountPublicId'),
  sql<string | null>`u.email`.as('accountEmail'),
  sql<string | null>`u.name`.as('accountName'),
  sql<boolean | null>`u.email_verified`.as('accountEmailVerified'),
  sql<Date | null>`u.banned_until`.as('accountBannedUntil'),
  sql<Date | null>`u.deletion_due_at`.as('accountDeletionDueAt'),
  sql<string | null>`u.locale`.as('accountLocale'),
]

/** The account behind a `sub`, or undefined when there is none or it is banned. */
export async function findOidcAccount(db: Kysely<Database>, sub: string, now: number): Promise<OidcAccount | undefined> {
  if (!isPublicId(sub)) return undefined
  // read with the token of this request already, when the provider reached the account through one
  const ahead = takeReadAhead<OidcAccountRow | null>(accountKey(sub))
  const user = ahead.found
    ? (ahead.value ?? undefined)
    : await db
        .selectFrom('users')
        .select(['id', 'public_id', 'email', 'name', 'email_verified', 'banned_until', 'deletion_due_at', 'locale'])
        .where('public_id', '=', sub)
        .executeTakeFirst()
  return user ? oidcAccountOf(db, user, now) : undefined
}

/** The account of a users row as the provider's findAccount gives it: undefined when banned or being deleted. The fast refresh grant (fast/refresh-token.ts) builds it from its own read. */
export function oidcAccountOf(db: Kysely<Database>, user: OidcAccountRow, now: number): OidcAccount | undefined {
  // a disabled account (a confirmed deletion) has no claims either: the provider refuses its grants
  if ((user.banned_until && user.banned_until.getTime() > now) || isDeletionPending(user)) return undefined
  return {
    accountId: user.public_id,
    // the provider drops what the granted scopes and claims do not cover; the memberships are read
    // only for a token or userinfo answer whose scope asks for them
    claims: async (_use, scope) => ({
      sub: user.public_id,
      email: user.email,
      email_verified: user.email_verified,
      name: user.name,
      // a BCP 47 tag (OIDC Core 5.1) the relying party can show its own pages in; absent until the
      // person picks a language, rather than a guess from one request's Accept-Language
      ...(user.locale ? { locale: user.locale } : {}),
      ...(scope.split(' ').includes('organization') ? { orgs: await orgClaimsOfUser(db, user.id) } : {}),
    }),
  }
}

/** Ends every grant, session and token the provider holds for the account; one statement. */
export async function revokeAccountGrants(db: Kysely<Database> | Transaction<Database>, userId: number): Promise<void> {
  await db
    .deleteFrom('oidc_payloads')
    .where('account_id', '=', (eb) => eb.selectFrom('users').select((s) => s.cast<string>('public_id', 'text').as('p')).where('id', '=', userId))
    .execute()
}

/**
 * Registers what the provider does when sessions end: every session of an account ending ends its
 * grants too, in the same transaction. Called wherever an IamContext is built.
 */
export function registerOidcSessionListeners(hooks: SessionHooks): void {
  hooks.onAccountSessionsRevoked(revokeAccountGrants)
}
