/**
 * Users and OAuth identities: SQL only. Email uniqueness is the unique index on lower(email);
 * callers map its violation (isUniqueViolation) to 409 instead of pre-checking.
 */
import { sql, type Kysely, type Transaction } from 'kysely'
import { compiledOnce } from '../../fast/compiled-once'
import type { Database, User, Visitor } from '../../db/schema'

type Db = Kysely<Database> | Transaction<Database>

/** Postgres and PGlite both report unique violations as SQLSTATE 23505. */
export function isUniqueViolation(error: unknown): boolean {
  return !!error && typeof error === 'object' && (error as { code?: unknown }).code === '23505'
}

export function findUserByEmail(db: Db, email: string): Promise<User | undefined> {
  return db.selectFrom('users').selectAll().where(sql`lower(email)`, '=', email.toLowerCase()).executeTakeFirst()
}

/**
 * The account behind an address (lower-cased) and whether it has an enabled second factor, read
 * with the lookup, so every attempt costs the same single statement (used only after the password
 * was right). The statement is the login's device-and-account read without a device.
 */
export async function findUserForLogin(db: Kysely<Database>, email: string): Promise<LoginAccount | undefined> {
  return (await findDeviceAndLoginAccount(db, { canaryId: '', email: email.toLowerCase() })).account
}

/** What a password login uses of the account (findUserForLogin's row has it, and more). */
export type LoginAccount = Pick<User, 'id' | 'public_id' | 'password_hash' | 'banned_until' | 'roles' | 'deletion_due_at'> & { has_second_factor: boolean }

/**
 * A login's device row (by canary) and the account behind an address (lower-cased), in ONE read:
 * the sign-in's device step and its account lookup share a round trip (see docs/performance.md). Either may be
 * missing. The account columns are prefixed `u_` so they never shadow the device's.
 */
export async function findDeviceAndLoginAccount(
  db: Kysely<Database>,
  args: { canaryId: string; email: string },
): Promise<{ visitor: Visitor | undefined; account: LoginAccount | undefined }> {
  const { rows } = await deviceAndLoginAccount(db, args)
  const { u_id, u_public_id, u_password_hash, u_banned_until, u_roles, u_deletion_due_at, u_has_second_factor, ...visitor } = rows[0]!
  return {
    visitor: visitor.id === null ? undefined : (visitor as Visitor),
    account:
      u_id === null
        ? undefined
        : { id: u_id, public_id: u_public_id!, password_hash: u_password_hash, banned_until: u_banned_until, roles: u_roles!, deletion_due_at: u_deletion_due_at, has_second_factor: !!u_has_second_factor },
  }
}

// every login runs it: compiled once (fast/compiled-once.ts); one row always, the joins may find nothing
export const deviceAndLoginAccount = compiledOnce((db: Kysely<Database>, args: { canaryId: string; email: string }) =>
  db
    .selectFrom(sql<{ one: number }>`(select 1 as one)`.as('one'))
    .leftJoin('visitors as v', (join) => join.on('v.canary_id', '=', args.canaryId))
    // an account disabled by a confirmed deletion is read too: its password is verified like any
    // account's, and only the right one learns the state (login-service.ts, account-deletion/deletion-state.ts)
    .leftJoin('users as u', (join) => join.on(sql`lower(u.email)`, '=', args.email))
    .selectAll('v')
    .select(['u.id as u_id', 'u.public_id as u_public_id', 'u.password_hash as u_password_hash', 'u.banned_until as u_banned_until', 'u.roles as u_roles', 'u.deletion_due_at as u_deletion_due_at'])
    .select((eb) =>
      eb
        .exists(eb.selectFrom('totp_factors').select('totp_factors.user_id').whereRef('totp_factors.user_id', '=', 'u.id').where('totp_factors.enabled_at', 'is not', null))
        .as('u_has_second_factor'),
    ),
)

export function findUserById(db: Db, id: number): Promise<User | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst()
}

export async function insertUser(
  db: Db,
  user: { email: string; name: string; passwordHash: string | null; emailVerified: boolean; termsConsent: boolean; now: Date; timeZone?: string | null },
): Promise<User> {
  return db
    .insertInto('users')
    .values({
      email: user.email,
      name: user.name,
      password_hash: user.passwordHash,
      email_verified: user.emailVerified,
      first_verified_at: user.emailVerified ? user.now : null,
      terms_consent: user.termsConsent,
      time_zone: user.timeZone ?? null,
      roles: JSON.stringify(['user']),
      created_at: user.now,
      updated_at: user.now,
    })
    .returningAll()
    .executeTakeFirstOrThrow()
}

/**
 * Keeps the IANA time zone a sign-in's browser named (checked by iam/contract/time-zones.ts) on the
 * account; the row is written only when the zone moved, so a steady sign-in costs a read of the
 * primary key and no write. updated_at stays: the zone is no change the owner made.
 * A zone the owner chose on the account page (time_zone_chosen, migration 0026) wins: the browser
 * follows the latest sign-in only while no choice was made (or after the owner forgot it).
 */
export async function rememberTimeZone(db: Db, userId: number, timeZone: string): Promise<void> {
  await db
    .updateTable('users')
    .set({ time_zone: timeZone })
    .where('id', '=', userId)
    .where('time_zone_chosen', '=', false)
    .where(sql<boolean>`time_zone is distinct from ${timeZone}`)
    .execute()
}

/** Replaces the hash only if it is still the one we verified (a concurrent change wins); true when replaced. */
export async function replacePasswordHash(db: Db, userId: number, oldHash: string, newHash: string, now: Date): Promise<boolean> {
  const result = await db
    .updateTable('users')
    .set({ password_hash: newHash, updated_at: now })
    .where('id', '=', userId)
    .where('password_hash', '=', oldHash)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) === 1
}

export function findIdentity(db: Db, provider: string, providerUserId: string) {
  return db
    .selectFrom('oauth_identities')
    .selectAll()
    .where('provider', '=', provider)
    .where('provider_user_id', '=', providerUserId)
    .executeTakeFirst()
}

export async function insertIdentity(
  db: Db,
  identity: { userId: number; provider: string; providerUserId: string; email: string; emailVerified: boolean; profile: Record<string, unknown>; now: Date },
): Promise<void> {
  await db
    .insertInto('oauth_identities')
    .values({
      user_id: identity.userId,
      provider: identity.provider,
      provider_user_id: identity.providerUserId,
      email: identity.email,
      email_verified: identity.emailVerified,
      profile: JSON.stringify(identity.profile),
      created_at: identity.now,
      last_login_at: identity.now,
    })
    .execute()
}

export async function touchIdentity(
  db: Db,
  id: number,
  update: { email: string; emailVerified: boolean; profile: Record<string, unknown>; now: Date },
): Promise<void> {
  await db
    .updateTable('oauth_identities')
    .set({ email: update.email, email_verified: update.emailVerified, profile: JSON.stringify(update.profile), last_login_at: update.now })
    .where('id', '=', id)
    .execute()
}
