/**
 * compiledOnce (iam/fast/compiled-once.ts) compiles a statement once and afterwards only swaps the
 * values in. Every real statement built with it must answer exactly what the plain Kysely statement
 * (the same builder, compiled per call by Kysely) answers for the same arguments: the same rows, the
 * same affected-row count, the same refusal, and for a write the same rows left in the tables.
 * Run against a migrated, seeded database on PGlite and, with DATABASE_URL, on PostgreSQL.
 */
import { sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import { COMPILED_CASES, declaredIn, outcomeOf, reset, snapshot } from './data-layer-cases'
import { dataLayerDbForSuite, KINDS } from './data-layer-db'

it('the table below covers every statement built with compiledOnce in iam/features and iam/fast', () => {
  expect(COMPILED_CASES.map((c) => c.name).sort()).toEqual(declaredIn(/\bconst (\w+) = compiledOnce\b/g))
})

describe.each(KINDS)('compiledOnce against plain Kysely on $label', ({ kind, skip: kindAbsent }) => {
  const t = dataLayerDbForSuite(kind, kindAbsent)

  // `skip`: PostgreSQL runs only with DATABASE_URL, PGlite only without it (see KINDS)
  it.skipIf(kindAbsent).each(COMPILED_CASES)('$name answers the plain Kysely statement\'s rows for every argument set, matching or not', async ({ statement, writes, args }) => {
    const { db } = t
    await reset(db)
    for (const a of args) {
      // a write runs each way from the same rows; a read runs both ways on the seeded rows
      const once = await outcomeOf(() => statement(db, a as never))
      const onceRows = writes ? await snapshot(db) : undefined
      if (writes) await reset(db)
      const plain = await outcomeOf(() => db.executeQuery(statement.build(db, a as never).compile() as never))
      const plainRows = writes ? await snapshot(db) : undefined
      if (writes) await reset(db)
      expect({ args: a, ...once }).toEqual({ args: a, ...plain })
      expect(onceRows).toEqual(plainRows)
    }
  })

  // skipped where KINDS says: PostgreSQL runs with DATABASE_URL (CI's PostgreSQL + Redis run), PGlite without it
  it.skipIf(kindAbsent)('a sign-in with its outbox writes a delivery for each enabled endpoint subscribed, queued behind the account\'s pending one', async () => {
    const { db } = t
    await reset(db)
    const { statement, args: [first] } = COMPILED_CASES.find((c) => c.name === 'sessionWithOutbox')!
    await statement(db, first as never)
    const rows = await db.selectFrom('webhook_deliveries as d').innerJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
      .select(['e.public_id', 'd.msg_id', 'd.event_type', 'd.account_key', 'd.payload', sql<boolean>`d.next_attempt_at = 'infinity'::timestamptz`.as('waits')]).where('d.msg_id', '!=', 'msg_seeded').orderBy('e.public_id').execute()
    expect(rows.map((r) => [r.public_id, r.event_type, r.account_key])).toEqual([
      ['ep_all', 'session.created', '00000000-0000-4000-8000-000000000001'],
      ['ep_sessions', 'session.created', '00000000-0000-4000-8000-000000000001'],
    ])
    expect(rows[0]!.msg_id).toMatch(/^msg_[0-9a-f]{32}$/)
    expect(rows[0]!.payload).toEqual({ type: 'session.created', timestamp: '2026-11-27T12:00:00.000Z', data: { user: { id: '00000000-0000-4000-8000-000000000001' }, method: 'password' } })
    // ep_all holds a pending delivery about the account: the new one waits behind it
    expect(rows.map((r) => r.waits)).toEqual([true, false])
  })

  // skipped where KINDS says: PostgreSQL runs with DATABASE_URL (CI's PostgreSQL + Redis run), PGlite without it
  it.skipIf(kindAbsent)('the argument sets are not vacuous: each statement has sets that match and sets that match nothing', async () => {
    const { db } = t
    await reset(db)
    for (const { name, statement, writes, args } of COMPILED_CASES) {
      if (writes && name !== 'countUsesStatement') continue // the inserts: checked above through the tables
      const counts: number[] = []
      for (const a of args) {
        const result = await statement(db, a as never)
        // the reads always return one row (left joins from a constant), so "matched" is a joined row
        const row = result.rows[0] as Record<string, unknown> | undefined
        counts.push(row === undefined ? 0 : name === 'deviceAndLoginAccount' ? Number(row.id !== null) + Number(row.u_id !== null) : 1)
        if (writes) await reset(db)
      }
      expect({ name, some: counts.some((c) => c > 0), none: counts.some((c) => c === 0) }).toEqual({ name, some: true, none: true })
    }
  })
})
