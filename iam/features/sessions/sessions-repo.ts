/**
 * Session families and refresh tokens: SQL only. Functions take `db` or a transaction first.
 */
import { sql, type Kysely, type Transaction } from 'kysely'
import type { Database, RefreshToken, RefreshTokenStatus, SessionFamily } from '../../db/schema'

type Db = Kysely<Database> | Transaction<Database>

export async function insertFamily(
  db: Db,
  family: { id: string; userId: number; visitorRowId: number; remember: boolean; ipAddress: string; fingerprint: Record<string, unknown> | null; now: Date },
): Promise<void> {
  await db
    .insertInto('session_families')
    .values({
      id: family.id,
      user_id: family.userId,
      visitor_id: family.visitorRowId,
      remember: family.remember,
      ip_address: family.ipAddress,
      fingerprint: family.fingerprint ? JSON.stringify(family.fingerprint) : null,
      created_at: family.now,
      last_seen: family.now,
    })
    .execute()
}

export async function insertRefreshToken(db: Db, token: { familyId: string; hash: string; expiresAt: Date; now: Date }): Promise<number> {
  const row = await db
    .insertInto('refresh_tokens')
    .values({ family_id: token.familyId, token_hash: token.hash, status: 'active', created_at: token.now, expires_at: token.expiresAt })
    .returning('id')
    .executeTakeFirstOrThrow()
  return row.id
}

export interface SessionState {
  token: RefreshToken
  family: SessionFamily
}

/** The token row behind a hash and its family. */
export async function findSessionByTokenHash(db: Db, hash: string): Promise<SessionState | null> {
  const token = await db.selectFrom('refresh_tokens').selectAll().where('token_hash', '=', hash).executeTakeFirst()
  if (!token) return null
  const family = await db.selectFrom('session_families').selectAll().where('id', '=', token.family_id).executeTakeFirst()
  return family ? { token, family } : null
}

/** The status of the token behind a hash ('active', 'rotated', ...), or null when there is none. */
export async function findTokenStatus(db: Db, hash: string): Promise<RefreshTokenStatus | null> {
  const row = await db.selectFrom('refresh_tokens').select('status').where('token_hash', '=', hash).executeTakeFirst()
  return row?.status ?? null
}

/**
 * Marks the active token as rotated in one conditional statement: under concurrency exactly one
 * caller gets the row back (Postgres re-checks `status = 'active'` after the row lock is released).
 */
export function markRotated(db: Db, hash: string, now: Date) {
  return db
    .updateTable('refresh_tokens')
    .set({ status: 'rotated', used_at: now })
    .where('token_hash', '=', hash)
    .where('status', '=', 'active')
    .returning(['id', 'family_id', 'expires_at'])
    .executeTakeFirst()
}

/** Retires whatever token of the family is active (MFA re-issue), returning nothing. */
export async function rotateActiveOfFamily(db: Db, familyId: string, now: Date): Promise<void> {
  await db
    .updateTable('refresh_tokens')
    .set({ status: 'rotated', used_at: now })
    .where('family_id', '=', familyId)
    .where('status', '=', 'active')
    .execute()
}

export async function linkReplacement(db: Db, oldId: number, newId: number): Promise<void> {
  await db.updateTable('refresh_tokens').set({ replaced_by: newId }).where('id', '=', oldId).execute()
}

/** Revokes families and their tokens. `where` picks the families. */
export async function revokeFamilies(
  db: Db,
  where: { familyId?: string; userId?: number; exceptFamilyId?: string },
  reason: string,
  now: Date,
): Promise<string[]> {
  let query = db.updateTable('session_families').set({ revoked_at: now, revoked_reason: reason }).where('revoked_at', 'is', null)
  if (where.familyId) query = query.where('id', '=', where.familyId)
  if (where.userId !== undefined) query = query.where('user_id', '=', where.userId)
  if (where.exceptFamilyId) query = query.where('id', '!=', where.exceptFamilyId)
  const revoked = (await query.returning('id').execute()).map((r) => r.id)
  if (revoked.length) {
    await db.updateTable('refresh_tokens').set({ status: 'revoked' }).where('family_id', 'in', revoked).where('status', '=', 'active').execute()
  }
  return revoked
}

/** Live sessions of a user (not revoked, an unexpired active token) and those created since `since`. */
export async function countUserSessions(db: Db, userId: number, now: Date, since: Date): Promise<{ live: number; recent: number }> {
  const row = await db
    .selectFrom('session_families as f')
    .where('f.user_id', '=', userId)
    .select([
      sql<number>`count(*) filter (where f.revoked_at is null and exists (
        select 1 from refresh_tokens t where t.family_id = f.id and t.status = 'active' and t.expires_at > ${now}))`.as('live'),
      sql<number>`count(*) filter (where f.created_at > ${since})`.as('recent'),
    ])
    .executeTakeFirstOrThrow()
  return { live: Number(row.live), recent: Number(row.recent) }
}

/**
 * Moves last_seen forward at most once per `everyMs` per family: idle detection needs no finer
 * grain, and most requests then cost no write.
 */
export async function touchFamily(db: Db, familyId: string, now: Date, everyMs: number): Promise<void> {
  await db
    .updateTable('session_families')
    .set({ last_seen: now })
    .where('id', '=', familyId)
    .where('last_seen', '<', new Date(now.getTime() - everyMs))
    .execute()
}

/** After MFA: binds the device, IP and fingerprint and records when MFA passed. */
export async function bindFamily(
  db: Db,
  familyId: string,
  bind: { visitorRowId: number; ipAddress: string; fingerprint: Record<string, unknown> | null; now: Date },
): Promise<void> {
  await db
    .updateTable('session_families')
    .set({
      visitor_id: bind.visitorRowId,
      ip_address: bind.ipAddress,
      fingerprint: bind.fingerprint ? JSON.stringify(bind.fingerprint) : null,
      last_mfa_at: bind.now,
      last_seen: bind.now,
    })
    .where('id', '=', familyId)
    .execute()
}
