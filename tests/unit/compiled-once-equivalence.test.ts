/**
 * compiledOnce (iam/fast/compiled-once.ts) compiles a statement once and afterwards only swaps the
 * values in. Every real statement built with it must answer exactly what the plain Kysely statement
 * (the same builder, compiled per call by Kysely) answers for the same arguments: the same rows, the
 * same affected-row count, the same refusal, and for a write the same rows left in the tables.
 * Run against a migrated, seeded database on PGlite and, with DATABASE_URL, on PostgreSQL.
 */
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
