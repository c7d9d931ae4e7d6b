/**
 * Named prepared statements (iam/fast/prepared.ts): on PostgreSQL every repeated data statement is
 * sent under a name, parsed once per connection and, after a few executions, run on a generic plan.
 * A name must never change an answer: each real statement of the hand-made data layer answers the
 * same rows (and leaves the same rows) named, named on a generic plan from the first execution, and
 * unnamed. And a statement whose result columns a migration changed (SQLSTATE 0A000) is retried
 * unnamed with the current columns, then sent unnamed on that connection.
 *
 * PGlite runs every statement unnamed (its driver has no prepared statements), so the database
 * cases are PostgreSQL only; the retry rule is also checked without a database.
 */
import { sql, type CompiledQuery, type Kysely } from 'kysely'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createDatabase, databasePoolStats } from '../../iam/db/database'
import { directPipelines } from '../../iam/fast/direct'
import { forgetPreparedNames, preparedName, queryPrepared } from '../../iam/fast/prepared'
import type { Database } from '../../iam/db/schema'
import { runOnPg } from '../helpers/test-database'
import { COMPILED_CASES, DIRECT_CASES, outcomeOf, reset, snapshot, type Outcome } from './data-layer-cases'
import { skippedWithout, titled } from '../helpers/skip-notes'
import { openDataLayerDb, type DataLayerDb } from './data-layer-db'

const SERVICE = { dataDir: '.data' } as never

/** Every real statement as (its SQL text, how to run it on a database) for each of its argument sets. */
const RUNS: Array<{ name: string; writes: boolean; runs: Array<{ label: unknown; text: (db: Kysely<Database>) => string; run: (db: Kysely<Database>) => Promise<Outcome> }> }> = [
  ...COMPILED_CASES.map(({ name, writes, statement, args }) => ({
    name,
    writes,
    runs: args.map((a) => ({
      label: a,
      text: (db: Kysely<Database>) => (statement.build(db, a as never).compile() as CompiledQuery).sql,
      run: (db: Kysely<Database>) => outcomeOf(() => db.executeQuery(statement.build(db, a as never).compile() as CompiledQuery)),
    })),
  })),
  ...DIRECT_CASES.map(({ name, writes, statement, params }) => ({
    name,
    writes,
    runs: params.map((p) => ({ label: p, text: () => statement.text, run: (db: Kysely<Database>) => outcomeOf(async () => ({ rows: await statement(db, p) })) })),
  })),
]

describe('queryPrepared (no database)', () => {
  const text = 'select * from t where id = $1 /* prepared-equivalence */'
  // names are per process and bounded: a file run before in this worker may have used them up
  // (prepared-names.test.ts fills the bound), and then this text would go unnamed from the start
  beforeEach(() => forgetPreparedNames())
  it('retries a statement refused with 0A000 unnamed, answers the unnamed answer, and sends it unnamed from then on', async () => {
    const sent: Array<string | undefined> = []
    const query = async (q: { name?: string }) => {
      sent.push(q.name)
      if (q.name) throw Object.assign(new Error('cached plan must not change result type'), { code: '0A000' })
      return { rows: [{ id: 1, added: 'x' }] }
    }
    const unnamed = new Set<string>()
    expect(await queryPrepared(query, unnamed, text, [1])).toEqual({ rows: [{ id: 1, added: 'x' }] })
    expect(await queryPrepared(query, unnamed, text, [1])).toEqual({ rows: [{ id: 1, added: 'x' }] })
    expect(sent).toEqual([preparedName(text), undefined, undefined])
    expect([...unnamed]).toEqual([text])
  })

  it('never retries any other error: it is the statement\'s own answer', async () => {
    const sent: Array<string | undefined> = []
    const query = async (q: { name?: string }) => {
      sent.push(q.name)
      throw Object.assign(new Error('duplicate key'), { code: '23505' })
    }
    const unnamed = new Set<string>()
    await expect(queryPrepared(query, unnamed, text, [1])).rejects.toMatchObject({ code: '23505' })
    expect(sent).toEqual([preparedName(text)])
    expect(unnamed.size).toBe(0)
  })
})

// skipped without DATABASE_URL: prepared statements are the PostgreSQL driver's (PGlite runs every statement unnamed)
describe.skipIf(skippedWithout('postgres'))(titled('named and unnamed statements on PostgreSQL', 'postgres'), () => {
  let t: DataLayerDb
  let named: Kysely<Database>
  let generic: Kysely<Database>
  let unnamed: Kysely<Database>
  beforeAll(async () => {
    // names are per process and bounded: a file run before in this worker may have used them up
    // (prepared-names.test.ts fills the bound); no connection of an earlier file is still open
    forgetPreparedNames()
    t = await openDataLayerDb('postgres')
    named = t.db
    const url = new URL(t.url!)
    url.searchParams.set('options', '-c plan_cache_mode=force_generic_plan')
    generic = await createDatabase({ database: { url: url.toString() }, service: SERVICE })
    unnamed = await createDatabase({ database: { url: t.url!, preparedStatements: false }, service: SERVICE })
  }, 120_000)
  afterAll(async () => {
    await generic?.destroy()
    await unnamed?.destroy()
    await t?.close()
  })

  it.each(RUNS)('$name answers the same rows named, named on a generic plan, and unnamed, for every argument set', async ({ writes, runs }) => {
    await reset(unnamed)
    for (const { label, text, run } of runs) {
      expect(preparedName(text(named))).toBeDefined()
      const ends: Array<{ label: unknown; outcome: Outcome; rows?: unknown }> = []
      // twice each: the second run of a named statement is Bind/Execute only, on the statement parsed by the first
      for (const db of [named, named, generic, generic, unnamed]) {
        const outcome = await run(db)
        ends.push({ label, outcome, rows: writes ? await snapshot(unnamed) : undefined })
        if (writes) await reset(unnamed)
      }
      for (const end of ends.slice(0, -1)) expect(end).toEqual(ends.at(-1))
    }
  })

  it('really sent them named: the named databases\' connections hold them as prepared statements, the unnamed one\'s none', async () => {
    // every connection at once (each holds what it ran): the pool's ten, and the two pipelined ones
    // (two statements sent together go one to each, pipelined.ts), the union of their prepared statements
    type Listing = { rows: Array<{ statement: string }> }
    const list = 'select statement from pg_prepared_statements'
    const held = async (db: Kysely<Database>) => {
      const pool = databasePoolStats(db) as unknown as { connect(): Promise<{ query(text: string): Promise<Listing>; release(): void }> }
      const clients = await Promise.all(Array.from({ length: 10 }, () => pool.connect()))
      try {
        const pipelines = directPipelines(db)!
        const all: Listing[] = await Promise.all([...clients.map((c) => c.query(list)), pipelines.query(list, []) as Promise<Listing>, pipelines.query(list, []) as Promise<Listing>])
        return new Set(all.flatMap((r) => r.rows.map((row) => row.statement)).filter((statement) => statement !== list))
      } finally {
        for (const c of clients) c.release()
      }
    }
    const texts = RUNS.flatMap(({ runs }) => runs.map((r) => r.text(named)))
    const planMode = async (db: Kysely<Database>) => (await sql<{ plan_cache_mode: string }>`show plan_cache_mode`.execute(db)).rows[0]!.plan_cache_mode
    expect([await planMode(named), await planMode(generic)]).toEqual(['auto', 'force_generic_plan'])
    for (const db of [named, generic]) {
      const prepared = await held(db)
      expect(texts.filter((text) => !prepared.has(text))).toEqual([])
    }
    expect(await held(unnamed)).toEqual(new Set())
  })

  it('a statement whose result columns a migration changed (0A000) is answered with the new columns, and goes unnamed on that connection', async () => {
    const { default: pg } = await import('pg')
    const client = new pg.Client({ connectionString: t.url })
    await client.connect()
    try {
      await client.query('create table prepared_probe (id int primary key)')
      await client.query('insert into prepared_probe values (1), (2)')
      const text = 'select * from prepared_probe where id = $1'
      const sent: Array<string | undefined> = []
      const query = (q: { text: string; values?: unknown[]; name?: string }) => {
        sent.push(q.name)
        return client.query(q)
      }
      const refused = new Set<string>()
      expect((await queryPrepared(query, refused, text, [1])).rows).toEqual([{ id: 1 }])
      // another instance's migration, on another connection
      await runOnPg(t.url!, "alter table prepared_probe add column note text default 'added'")
      const after = await queryPrepared(query, refused, text, [1])
      expect(after.rows).toEqual((await client.query({ text, values: [1] })).rows)
      expect(after.rows).toEqual([{ id: 1, note: 'added' }])
      expect((await queryPrepared(query, refused, text, [2])).rows).toEqual([{ id: 2, note: 'added' }])
      const name = preparedName(text)
      // named, refused (0A000) and retried unnamed, then unnamed at once
      expect(sent).toEqual([name, name, undefined, undefined])
      expect([...refused]).toEqual([text])
    } finally {
      await client.end()
    }
  })

  it('a * statement prepared before a migration added a column still runs inside a transaction, which a refusal would have lost', async () => {
    const { default: pg } = await import('pg')
    const client = new pg.Client({ connectionString: t.url })
    await client.connect()
    try {
      await client.query('create table prepared_probe_tx (id int primary key)')
      await client.query('insert into prepared_probe_tx values (1)')
      const text = 'insert into prepared_probe_tx (id) values ($1) returning *'
      const query = (q: { text: string; values?: unknown[]; name?: string }) => client.query(q)
      const refused = new Set<string>()
      // prepared under its name outside a transaction, as a running release does
      expect((await queryPrepared(query, refused, text, [2])).rows).toEqual([{ id: 2 }])
      // another instance's migration, on another connection
      await runOnPg(t.url!, "alter table prepared_probe_tx add column note text default 'added'")
      await client.query('begin')
      const inside = await queryPrepared(query, refused, text, [3], true)
      await client.query('commit')
      expect(inside.rows).toEqual([{ id: 3, note: 'added' }])
      expect((await client.query('select id from prepared_probe_tx order by id')).rows).toEqual([{ id: 1 }, { id: 2 }, { id: 3 }])
    } finally {
      await client.end()
    }
  })
})
