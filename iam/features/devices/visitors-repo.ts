/**
 * Visitors (devices named by the canary_id cookie): SQL only.
 */
import { sql, type Kysely } from 'kysely'
import { compiledOnce } from '../../db/compiled-once'
import type { Database, Visitor } from '../../db/schema'

export interface VisitInput {
  canaryId: string
  visitorId: string
  ipAddress: string
  userAgent: string
  fingerprint: Record<string, unknown> | null
  score: number
  /** set when the score alone bans the device */
  bannedUntil: Date | null
  now: Date
}

/**
 * Records one visit in a single statement: inserts the device or refreshes it. A live ban and its
 * score are kept (a banned device cannot wash its score by changing its user agent).
 */
export async function upsertVisitor(db: Kysely<Database>, input: VisitInput): Promise<Visitor> {
  return db
    .insertInto('visitors')
    .values({
      canary_id: input.canaryId,
      visitor_id: input.visitorId,
      ip_address: input.ipAddress,
      user_agent: input.userAgent,
      fingerprint: input.fingerprint ? JSON.stringify(input.fingerprint) : null,
      score: input.score,
      banned_until: input.bannedUntil,
      first_seen: input.now,
      last_seen: input.now,
    })
    .onConflict((oc) =>
      oc.column('canary_id').doUpdateSet({
        ip_address: (eb) => eb.ref('excluded.ip_address'),
        user_agent: (eb) => eb.ref('excluded.user_agent'),
        fingerprint: (eb) => eb.ref('excluded.fingerprint'),
        last_seen: (eb) => eb.ref('excluded.last_seen'),
        score: sql<number>`case when visitors.banned_until > ${input.now} then visitors.score else excluded.score end`,
        banned_until: sql<Date | null>`case when visitors.banned_until > ${input.now} then visitors.banned_until else excluded.banned_until end`,
      }),
    )
    .returningAll()
    .executeTakeFirstOrThrow()
}

// every sign-in reads its device first (devices-service.ts visitDevice): compiled once (db/compiled-once.ts)
export const visitorByCanary = compiledOnce((db: Kysely<Database>, args: { canaryId: string }) =>
  db.selectFrom('visitors').selectAll().where('canary_id', '=', args.canaryId),
)

export async function findVisitorByCanary(db: Kysely<Database>, canaryId: string): Promise<Visitor | undefined> {
  const { rows } = await visitorByCanary(db, { canaryId })
  return rows[0]
}

/** Sets the ban (score = banScore) and records why. */
export async function setVisitorBan(
  db: Kysely<Database>,
  visitorRowId: number,
  /** userId: the signed-in user whose request got the device banned, so the ban shows in their audit log */
  ban: { score: number; until: Date; reason: string; ipAddress: string | null; now: Date; userId?: number | null },
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.updateTable('visitors').set({ score: ban.score, banned_until: ban.until }).where('id', '=', visitorRowId).execute()
    await trx
      .insertInto('security_events')
      .values({
        type: 'device_banned',
        user_id: ban.userId ?? null,
        visitor_id: visitorRowId,
        ip_address: ban.ipAddress,
        details: JSON.stringify({ reason: ban.reason }),
        created_at: ban.now,
      })
      .execute()
  })
}
