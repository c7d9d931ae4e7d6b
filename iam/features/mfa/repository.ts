/**
 * SQL for magic links and their codes. Every state change that decides an outcome is one
 * conditional UPDATE ... RETURNING, so concurrent requests get exactly one winner.
 */
import { sql, type Kysely, type Transaction, type UpdateQueryBuilder, type UpdateResult } from 'kysely'
import type { Database, MagicLink, MfaCode } from '../../db/schema'

type Db = Kysely<Database> | Transaction<Database>

/** A link still usable at `now`: not consumed and not expired. Every counting or consuming UPDATE is guarded by it. */
function whereLive(qb: UpdateQueryBuilder<Database, 'magic_links', 'magic_links', UpdateResult>, jti: string, now: Date) {
  return qb.where('jti', '=', jti).where('consumed_at', 'is', null).where('expires_at', '>', now)
}

export type LinkWithCode = MagicLink & { code: Pick<MfaCode, 'code_hmac' | 'expires_at' | 'used_at'> | null }

export async function insertLink(
  db: Db,
  link: { jti: string; purpose: string; subject: string; user_id: number; family_id: string | null; visitor: string; random_hash: string; data: Record<string, unknown>; created_at: Date; expires_at: Date },
  code: { code_hmac: string; expires_at: Date } | null,
): Promise<void> {
  await db.insertInto('magic_links').values({ ...link, data: JSON.stringify(link.data) }).execute()
  if (code) {
    await db
      .insertInto('mfa_codes')
      .values({ link_jti: link.jti, user_id: link.user_id, family_id: link.family_id, code_hmac: code.code_hmac, created_at: link.created_at, expires_at: code.expires_at })
      .execute()
  }
}

/**
 * insertLink's statements writing no row (`select ... where false`): the thrown-away rehearsal of a
 * flow for an address no account uses (flows.ts rehearseFlow). Parsed, planned and run like the
 * real inserts; no row, so no foreign key to a user is needed.
 */
export async function insertNoLink(db: Db, link: { jti: string; purpose: string; subject: string; visitor: string; random_hash: string; expires_at: Date }, code: { code_hmac: string; expires_at: Date } | null): Promise<void> {
  await sql`insert into magic_links (jti, purpose, subject, user_id, visitor, random_hash, data, expires_at)
    select ${link.jti}, ${link.purpose}, ${link.subject}, 0, ${link.visitor}, ${link.random_hash}, '{}'::jsonb, ${link.expires_at} where false`.execute(db)
  if (code) {
    await sql`insert into mfa_codes (link_jti, user_id, code_hmac, expires_at) select ${link.jti}, 0, ${code.code_hmac}, ${code.expires_at} where false`.execute(db)
  }
}

export async function findLink(db: Db, jti: string): Promise<LinkWithCode | null> {
  const row = await db
    .selectFrom('magic_links as l')
    .leftJoin('mfa_codes as c', 'c.link_jti', 'l.jti')
    .selectAll('l')
    .select(['c.code_hmac', 'c.expires_at as code_expires_at', 'c.used_at as code_used_at'])
    .where('l.jti', '=', jti)
    .executeTakeFirst()
  if (!row) return null
  const { code_hmac, code_expires_at, code_used_at, ...link } = row
  return { ...link, code: code_hmac && code_expires_at ? { code_hmac, expires_at: code_expires_at, used_at: code_used_at } : null }
}

/** Counts one preview when the link is live and under `max`; false otherwise. */
export async function countPreview(db: Db, jti: string, now: Date, max: number, maxAttempts: number): Promise<boolean> {
  const row = await db
    .updateTable('magic_links')
    .set((eb) => ({ previews: eb('previews', '+', 1) }))
    .$call((qb) => whereLive(qb, jti, now))
    .where('previews', '<', max)
    .where('attempts', '<', maxAttempts)
    .returning('previews')
    .executeTakeFirst()
  return !!row
}

/** Counts one POST attempt when the link is live and under `max`; the new count, or null. */
export async function countAttempt(db: Db, jti: string, now: Date, max: number): Promise<number | null> {
  const row = await db
    .updateTable('magic_links')
    .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
    .$call((qb) => whereLive(qb, jti, now))
    .where('attempts', '<', max)
    .returning('attempts')
    .executeTakeFirst()
  return row ? row.attempts : null
}

/** Ends a link without using it (last attempt wrong, a newer link of the flow, a failed send). */
export async function burnLink(db: Db, jti: string, now: Date): Promise<void> {
  await db.updateTable('magic_links').set({ consumed_at: now }).where('jti', '=', jti).where('consumed_at', 'is', null).execute()
}

export async function deleteLink(db: Db, jti: string): Promise<void> {
  await db.deleteFrom('magic_links').where('jti', '=', jti).execute()
}

/**
 * The single winner: marks the link consumed (and its code used) only if both are still live.
 * Under PostgreSQL's READ COMMITTED a concurrent UPDATE waits for the row lock and re-checks the
 * WHERE clause after the winner commits, so it finds `consumed_at` set and returns nothing.
 */
export async function consumeLink(trx: Transaction<Database>, jti: string, now: Date, withCode: boolean): Promise<boolean> {
  const link = await trx
    .updateTable('magic_links')
    .set({ consumed_at: now })
    .$call((qb) => whereLive(qb, jti, now))
    .returning('jti')
    .executeTakeFirst()
  if (!link) return false
  if (!withCode) return true
  const code = await trx
    .updateTable('mfa_codes')
    .set({ used_at: now })
    .where('link_jti', '=', jti)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returning('id')
    .executeTakeFirst()
  return !!code
}

/** The live link (and usable code) of a flow: for a session when familyId is given, else for the user. */
export async function findLiveLink(
  db: Db,
  where: { userId: number; familyId: string | null; purpose: string; now: Date },
): Promise<{ jti: string; expires_at: Date } | null> {
  let query = db
    .selectFrom('magic_links as l')
    .leftJoin('mfa_codes as c', 'c.link_jti', 'l.jti')
    .select(['l.jti', 'l.expires_at'])
    .where('l.user_id', '=', where.userId)
    .where('l.purpose', '=', where.purpose)
    .where('l.consumed_at', 'is', null)
    .where('l.expires_at', '>', where.now)
    .where((eb) => eb.or([eb('c.id', 'is', null), eb.and([eb('c.used_at', 'is', null), eb('c.expires_at', '>', where.now)])]))
  query = where.familyId === null ? query.where('l.family_id', 'is', null) : query.where('l.family_id', '=', where.familyId)
  return (await query.orderBy('l.created_at', 'desc').executeTakeFirst()) ?? null
}

/** Ends every unconsumed link of a flow (a new one replaces them). */
export async function burnFlowLinks(db: Db, where: { userId: number; familyId: string | null; purpose: string; now: Date }): Promise<void> {
  let query = db
    .updateTable('magic_links')
    .set({ consumed_at: where.now })
    .where('user_id', '=', where.userId)
    .where('purpose', '=', where.purpose)
    .where('consumed_at', 'is', null)
  query = where.familyId === null ? query.where('family_id', 'is', null) : query.where('family_id', '=', where.familyId)
  await query.execute()
}

/** Serialises flow starts of one session (or one user) so "at most one live code" holds under concurrency. */
export async function lockFlowOwner(trx: Transaction<Database>, userId: number, familyId: string | null): Promise<boolean> {
  const row = familyId
    ? await trx.selectFrom('session_families').select('id').where('id', '=', familyId).forUpdate().executeTakeFirst()
    : await trx.selectFrom('users').select('id').where('id', '=', userId).forUpdate().executeTakeFirst()
  return !!row
}
