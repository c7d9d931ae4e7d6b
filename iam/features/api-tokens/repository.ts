/**
 * SQL of the API token feature. Functions take `db` (or a transaction) first. Every statement that
 * decides an outcome under concurrency is a single statement or runs in a transaction with a row lock.
 */
import { sql, type Kysely, type Transaction, type Updateable } from 'kysely'
import { compiledOnce } from '../../fast/compiled-once'
import type { Database, Privilege } from '../../db/schema'

type Db = Kysely<Database> | Transaction<Database>

export type VerifiedRow = {
  id: number
  user_id: number
  name: string
  created_at: Date
  expires_at: Date | null
  last_used: Date | null
  usage_count: number
}

/** What decides whether a token is usable for one verification (countUses and verifyWithoutCount). */
export type UseConditions = { hash: string; privilege: Privilege; at: Date; ip: string | null; bypassIp: boolean }

/** Finds the usable token of `hash` without counting. */
type VerifyLookup = (db: Db, hash: string, privilege: Privilege, at: Date, ip: string | null, bypassIp: boolean) => Promise<VerifiedRow | undefined>

export type DiagnosisRow = {
  valid: 0 | 1
  privilege_type: Privilege
  expires_at: Date | null
  restricted_to_ip_address: string[] | null
  user_id: number
  suspended_until: Date | null
}

/**
 * The success path of verification as ONE statement: validity, privilege, expiry and IP
 * allow-list are checked by the same UPDATE that counts the use, so N concurrent verifications
 * add exactly N (the row lock serialises the increments) and a revoked/expired token never counts.
 *
 * The statement's own (implicit) transaction commits asynchronously (`set_config(..., true)` is
 * SET LOCAL): a hot token's row lock is then held for the update, not for a WAL flush, so the
 * increments of one token do not queue behind one fsync each. Every increment is still
 * committed and visible before the answer; only a PostgreSQL crash (not a clean stop) may lose the
 * last ~3 x wal_writer_delay of them (docs/performance.md). The subquery runs once, when the
 * first row matches: a verification that matches nothing changes no setting.
 *
 * `uses` verifications are counted at once (fast/count-batch.ts joins concurrent verifications of one
 * token): the returned usage_count is the count after the last of them, so the uses had
 * `usage_count - uses + 1` to `usage_count`.
 */
export async function countUses(db: Db, conditions: UseConditions, uses: number): Promise<VerifiedRow | undefined> {
  const { rows } = await countUsesStatement(db, { ...conditions, uses })
  return rows[0]
}

// every counting batch runs it: compiled once (fast/compiled-once.ts), not built and compiled per batch
export const countUsesStatement = compiledOnce((db: Kysely<Database>, { hash, privilege, at, ip, bypassIp, uses }: UseConditions & { uses: number }) => {
  const statement = sql<VerifiedRow>`
    update api_tokens set usage_count = usage_count + ${uses}, last_used = ${at}
    where ${usableToken(hash, privilege, at, ip, bypassIp)}
      and (select set_config('synchronous_commit', 'off', true)) = 'off'
    returning id, user_id, name, created_at, expires_at, last_used, usage_count`
  return { compile: () => statement.compile(db) }
})

/** The same conditions without counting (skipCountUpdates). */
export const verifyWithoutCount: VerifyLookup = async (db, hash, privilege, at, ip, bypassIp) => {
  const { rows } = await sql<VerifiedRow>`
    select id, user_id, name, created_at, expires_at, last_used, usage_count from api_tokens
    where ${usableToken(hash, privilege, at, ip, bypassIp)}`.execute(db)
  return rows[0]
}

/**
 * The one definition of a usable token: valid, of the privilege, unexpired, not suspended (its
 * owner's ban) and allowed from `ip`. A suspension is a time, so a ban that runs out restores the
 * token without a write.
 */
function usableToken(hash: string, privilege: Privilege, at: Date, ip: string | null, bypassIp: boolean) {
  return sql<boolean>`hashed_token = ${hash} and valid = 1 and privilege_type = ${privilege}
      and (expires_at is null or expires_at > ${at})
      and (suspended_until is null or suspended_until <= ${at})
      and (${bypassIp}::boolean or ${ipAllowed(ip)})`
}

/** Whether a token with this suspension is suspended at `at` (the same rule as usableToken). */
export function isSuspended(row: { suspended_until: Date | null }, at: Date): boolean {
  return row.suspended_until !== null && new Date(row.suspended_until).getTime() > at.getTime()
}

/** No list (SQL or JSON null, or empty) = any host; otherwise the IP must be listed. */
function ipAllowed(ip: string | null) {
  return sql`(restricted_to_ip_address is null or restricted_to_ip_address in ('null'::jsonb, '[]'::jsonb)
    or restricted_to_ip_address @> jsonb_build_array(${ip}::text))`
}

/** Failure path: what the row looks like, to name the reason. */
export async function findForDiagnosis(db: Db, hash: string): Promise<DiagnosisRow | undefined> {
  return db
    .selectFrom('api_tokens')
    .select(['valid', 'privilege_type', 'expires_at', 'restricted_to_ip_address', 'user_id', 'suspended_until'])
    .where('hashed_token', '=', hash)
    .executeTakeFirst()
}

/** Marks an expired token invalid, so later verifications fail on the one statement (verify.ts). */
export async function invalidateIfExpired(db: Db, hash: string, at: Date): Promise<boolean> {
  const result = await db
    .updateTable('api_tokens')
    .set({ valid: 0 })
    .where('hashed_token', '=', hash)
    .where('valid', '=', 1)
    .where('expires_at', '<=', at)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}

/**
 * Revokes a valid token of `privilege` in one statement; tells whether it had already expired
 * (then the revocation is the expiry transition, and the helper answers as for an invalid token).
 */
export async function revokeByHash(
  db: Db,
  hash: string,
  privilege: Privilege,
  at: Date,
): Promise<{ id: number; user_id: number; expired: boolean; expires_at: Date | null; prefix: string } | undefined> {
  const { rows } = await sql<{ id: number; user_id: number; expired: boolean; expires_at: Date | null; prefix: string }>`
    update api_tokens set valid = 0
    where hashed_token = ${hash} and privilege_type = ${privilege} and valid = 1
    returning id, user_id, expires_at, prefix, (expires_at is not null and expires_at <= ${at}) as expired`.execute(db)
  return rows[0]
}

/**
 * Takes the user's row lock: creations of one user queue here, so count + insert cannot race. A
 * ban updates the same row, so a creation either sees the ban it waited for (its token is created
 * suspended until the ban ends) or committed before it (the ban suspends its token).
 * Undefined when there is no such user (or its deletion is confirmed); otherwise the end of a ban still running at `at`, or null.
 */
export async function lockUser(trx: Transaction<Database>, userId: number, at: Date): Promise<{ bannedUntil: Date | null } | undefined> {
  // an account disabled by a confirmed deletion makes no tokens: the confirmation revokes them all
  // under this same row lock (features/account-deletion), so a creation that waited for it stops here
  const { rows } = await sql<{ banned_until: Date | null }>`
    select case when banned_until > ${at} then banned_until end as banned_until
    from users where id = ${userId} and deletion_due_at is null for no key update`.execute(trx)
  const row = rows[0]
  return row && { bannedUntil: row.banned_until }
}

/** Suspends every valid token of the user until `until` (a ban), or lifts the suspension (null: unban); how many. */
export async function setSuspensionOfUser(db: Db, userId: number, until: Date | null): Promise<number> {
  const result = await db
    .updateTable('api_tokens')
    .set({ suspended_until: until })
    .where('user_id', '=', userId)
    .where('valid', '=', 1)
    .executeTakeFirst()
  return Number(result.numUpdatedRows)
}

/** Valid, unexpired tokens of the user (the per-user limit counts these). */
export async function countLiveTokens(db: Db, userId: number, at: Date): Promise<number> {
  const row = await db
    .selectFrom('api_tokens')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('user_id', '=', userId)
    .where('valid', '=', 1)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', at)]))
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

export type NewTokenRow = {
  userId: number
  name: string
  prefix: string
  hash: string
  publicIdentifier: string
  privilege: Privilege
  createdAt: Date
  expiresAt: Date | null
  ips: string[] | null
  /** the end of the owner's running ban (lockUser), else null */
  suspendedUntil: Date | null
}

export async function insertToken(db: Db, row: NewTokenRow): Promise<number> {
  const inserted = await db
    .insertInto('api_tokens')
    .values({
      user_id: row.userId,
      name: row.name,
      prefix: row.prefix,
      hashed_token: row.hash,
      public_identifier: row.publicIdentifier,
      privilege_type: row.privilege,
      valid: 1,
      created_at: row.createdAt,
      expires_at: row.expiresAt,
      // JSON text for jsonb; SQL NULL (not JSON null) when unrestricted
      restricted_to_ip_address: row.ips ? JSON.stringify(row.ips) : null,
      suspended_until: row.suspendedUntil,
    })
    .returning('id')
    .executeTakeFirstOrThrow()
  return inserted.id
}

export async function setRotatedTo(db: Db, oldId: number, newId: number): Promise<void> {
  await db.updateTable('api_tokens').set({ rotated_to: newId }).where('id', '=', oldId).execute()
}

export async function deleteRevoked(db: Db, id: number, userId: number): Promise<boolean> {
  const result = await db
    .deleteFrom('api_tokens')
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .where('valid', '=', 0)
    .executeTakeFirst()
  return Number(result.numDeletedRows) > 0
}

/**
 * User-wide counts (the listing and metadata results). A suspended token (its owner is banned)
 * counts as invalid while the suspension lasts, as it verifies like one.
 */
export async function countTokens(
  db: Db,
  userId: number,
  at: Date,
): Promise<{ total: number; totalValidTokens: number; totalInvalidTokens: number }> {
  const { rows } = await sql<{ total: number; valid: number; invalid: number }>`
    select count(*)::int as total, count(*) filter (where ${liveRow(at)})::int as valid,
           count(*) filter (where not (${liveRow(at)}))::int as invalid
    from api_tokens where user_id = ${userId}`.execute(db)
  const row = rows[0]
  return { total: Number(row?.total ?? 0), totalValidTokens: Number(row?.valid ?? 0), totalInvalidTokens: Number(row?.invalid ?? 0) }
}

/** valid = 1 and not suspended at `at` (expiry aside: an expired token stays valid until a verification marks it). */
function liveRow(at: Date) {
  return sql<boolean>`valid = 1 and (suspended_until is null or suspended_until <= ${at})`
}

/** The valid tokens of the user that are not suspended at `at`. */
export async function listValidTokens(db: Db, userId: number, at: Date) {
  return db
    .selectFrom('api_tokens')
    .select([
      'id', 'name', 'created_at', 'expires_at', 'restricted_to_ip_address', 'public_identifier',
      'last_used', 'usage_count', 'privilege_type',
    ])
    .where('user_id', '=', userId)
    .where(liveRow(at))
    .orderBy('id')
    .execute()
}

/** The owner check of privateActionManager: id, owner, name, public identifier, valid. */
export async function findOwnedValidToken(
  db: Db,
  userId: number,
  tokenId: number,
  name: string,
  publicIdentifier: string,
) {
  return db
    .selectFrom('api_tokens')
    .select(['id', 'hashed_token', 'privilege_type', 'name', 'prefix', 'expires_at', 'restricted_to_ip_address'])
    .where('id', '=', tokenId)
    .where('user_id', '=', userId)
    .where('name', '=', name)
    .where('public_identifier', '=', publicIdentifier)
    .where('valid', '=', 1)
    .executeTakeFirst()
}

/** Sets the allow-list of a valid token of the user; false when no row matched. */
export function updateIpList(db: Db, userId: number, hash: string, ips: string[] | null): Promise<boolean> {
  return updateValidToken(db, userId, hash, { restricted_to_ip_address: ips ? JSON.stringify(ips) : null })
}

export function updatePrivilege(db: Db, userId: number, hash: string, privilege: Privilege): Promise<boolean> {
  return updateValidToken(db, userId, hash, { privilege_type: privilege })
}

/** One UPDATE of a valid token of the user; false when no row matched. */
async function updateValidToken(db: Db, userId: number, hash: string, changes: Updateable<Database['api_tokens']>): Promise<boolean> {
  const result = await db
    .updateTable('api_tokens')
    .set(changes)
    .where('hashed_token', '=', hash)
    .where('user_id', '=', userId)
    .where('valid', '=', 1)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}
