/**
 * Accounts as the OpenID Provider sees them: `sub` is users.public_id (never the serial key), the
 * claims are the ones the scopes ask for (OIDC Core 5.4), and a banned account has no claims, so
 * the provider refuses its grants. Account events (sign out everywhere, a password change or reset,
 * a ban) end the account's grants at once: revokeAccountGrants.
 */
import type { Kysely, Transaction } from 'kysely'
import type { Database } from '../../db/schema'
import { isDeletionPending } from '../account-deletion/deletion-state'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

export const isPublicId = (value: string) => UUID.test(value)

export interface OidcAccount {
  [key: string]: unknown
  accountId: string
  claims(): Promise<{ sub: string; [claim: string]: unknown }>
}

/** The account behind a `sub`, or undefined when there is none or it is banned. */
export async function findOidcAccount(db: Kysely<Database>, sub: string, now: number): Promise<OidcAccount | undefined> {
  if (!isPublicId(sub)) return undefined
  const user = await db
    .selectFrom('users')
    .select(['public_id', 'email', 'name', 'email_verified', 'banned_until', 'deletion_due_at'])
    .where('public_id', '=', sub)
    .executeTakeFirst()
  // a disabled account (a confirmed deletion) has no claims either: the provider refuses its grants
  if (!user || (user.banned_until && user.banned_until.getTime() > now) || isDeletionPending(user)) return undefined
  return {
    accountId: user.public_id,
    // the provider drops what the granted scopes and claims do not cover
    claims: async () => ({ sub: user.public_id, email: user.email, email_verified: user.email_verified, name: user.name }),
  }
}

/** Ends every grant, session and token the provider holds for the account; one statement. */
export async function revokeAccountGrants(db: Kysely<Database> | Transaction<Database>, userId: number): Promise<void> {
  await db
    .deleteFrom('oidc_payloads')
    .where('account_id', '=', (eb) => eb.selectFrom('users').select((s) => s.cast<string>('public_id', 'text').as('p')).where('id', '=', userId))
    .execute()
}
