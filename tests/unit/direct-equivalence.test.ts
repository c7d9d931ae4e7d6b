/**
 * directStatement (iam/fast/direct.ts) sends a fixed statement straight to PostgreSQL, past Kysely's
 * executor and plugins: a read on a pipelined connection (iam/fast/pipelined.ts), a write on a pooled one. Each real one must answer exactly what the same text run through Kysely
 * (`db.executeQuery`) answers for the same parameters: the same rows and, for a write, the same rows
 * left in the tables. On PostgreSQL that compares those paths with Kysely's; on PGlite (no pool)
 * and inside a transaction directStatement itself goes through Kysely, so there the test only holds
 * that fallback to the same answers.
 */
import { CompiledQuery } from 'kysely'
import { describe, expect, it } from 'vitest'
import { directPipelines, directPool, directStatement } from '../../iam/fast/direct'
import { declaredIn, DIRECT_CASES, reset, snapshot } from './data-layer-cases'
import { dataLayerDbForSuite, KINDS } from './data-layer-db'

it('the table below covers every directStatement in iam/features and iam/fast', () => {
  expect(DIRECT_CASES.map((c) => c.name).sort()).toEqual(declaredIn(/\bconst (\w+) = directStatement\b/g))
})

it('pipelines the reads only: a write or a locking read may wait for a row lock, and would hold up the statements behind it', () => {
  expect(DIRECT_CASES.map((c) => [c.name, c.statement.pipelined])).toEqual(DIRECT_CASES.map((c) => [c.name, !c.writes]))
  expect(DIRECT_CASES.some((c) => c.writes)).toBe(true)
  for (const lock of ['for update', 'FOR NO KEY UPDATE', 'for share', 'for key share']) {
    expect(directStatement(`select id from refresh_families where id = $1 ${lock}`).pipelined).toBe(false)
  }
})

describe.each(KINDS)('directStatement against Kysely on $label', ({ kind, skip: kindAbsent }) => {
  const t = dataLayerDbForSuite(kind, kindAbsent)

  // `skip`: PostgreSQL runs only with DATABASE_URL, PGlite only without it (see KINDS)
  it.skipIf(kindAbsent)(kind === 'postgres' ? 'has the pipelined connections and the pool on PostgreSQL (the paths compared below)' : 'has neither on PGlite: it falls back to Kysely', () => {
    expect([directPipelines(t.db) !== undefined, directPool(t.db) !== undefined]).toEqual([kind === 'postgres', kind === 'postgres'])
  })

  // skipped where KINDS says: PostgreSQL runs with DATABASE_URL (CI's PostgreSQL + Redis run), PGlite without it
  it.skipIf(kindAbsent).each(DIRECT_CASES)('$name answers the rows of the same text through Kysely for every parameter set, matching or not', async ({ statement, writes, params }) => {
    const { db } = t
    await reset(db)
    for (const p of params) {
      const direct = await statement(db, p)
      const directRows = writes ? await snapshot(db) : undefined
      if (writes) await reset(db)
      const kysely = (await db.executeQuery(CompiledQuery.raw(statement.text, p))).rows
      const kyselyRows = writes ? await snapshot(db) : undefined
      if (writes) await reset(db)
      expect({ params: p, rows: direct }).toEqual({ params: p, rows: kysely })
      expect(directRows).toEqual(kyselyRows)
    }
  })

  // skipped where KINDS says: PostgreSQL runs with DATABASE_URL (CI's PostgreSQL + Redis run), PGlite without it
  it.skipIf(kindAbsent).each(DIRECT_CASES)('$name answers the same inside a transaction, where it goes through Kysely', async ({ statement, writes, params }) => {
    const { db } = t
    await reset(db)
    for (const p of params) {
      const inside = await db.transaction().execute((trx) => statement(trx, p))
      if (writes) await reset(db)
      const outside = await statement(db, p)
      if (writes) await reset(db)
      expect({ params: p, rows: inside }).toEqual({ params: p, rows: outside })
    }
  })

  // skipped where KINDS says: PostgreSQL runs with DATABASE_URL (CI's PostgreSQL + Redis run), PGlite without it
  it.skipIf(kindAbsent)('the parameter sets are not vacuous: sessions found and not, rotations with a successor, without one, and of nothing, introspections of a stored token and of none', async () => {
    const { db } = t
    await reset(db)
    const [auth, rotation, introspection] = DIRECT_CASES
    const found = []
    for (const p of auth!.params) found.push(((await auth!.statement(db, p)) as Array<{ r: unknown[] }>)[0]!.r[0] !== null)
    expect(found).toContain(true)
    expect(found).toContain(false)
    const rotated = []
    for (const p of rotation!.params) {
      const row = ((await rotation!.statement(db, p)) as Array<{ replacedBy: number | null }>)[0]
      rotated.push(row === undefined ? 'nothing' : row.replacedBy === null ? 'spent' : 'successor')
      await reset(db)
    }
    expect(new Set(rotated)).toEqual(new Set(['nothing', 'spent', 'successor']))
    // the array's members 0 and 4: the caller's sealed secret, the token's payload
    const introspected = []
    for (const p of introspection!.params) {
      const [r] = (await introspection!.statement(db, p)) as Array<{ r: [string | null, unknown, unknown, unknown, unknown] }>
      introspected.push(`${r!.r[0] === null ? 'no client' : 'client'}, ${r!.r[4] === null ? 'no token' : 'token'}`)
    }
    expect(new Set(introspected)).toEqual(new Set(['client, token', 'client, no token', 'no client, no token']))
  })
})
