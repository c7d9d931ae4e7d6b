/**
 * The pipelined connections of the statements every request runs (iam/fast/pipelined.ts), opened
 * the way the IAM opens them (createDatabase) on a throwaway PostgreSQL database: statements sent
 * together share the connections and each gets its own answer, a failing statement fails alone, a
 * lost or silent connection fails as an outage (a 503, lib/outage.ts) and is replaced, and
 * closing lets what was sent be answered.
 */
import type { Kysely } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDatabase, PIPELINE_CONNECTIONS, warmDatabase } from '../../iam/db/database'
import { directPipelines } from '../../iam/fast/direct'
import type { Pipelines } from '../../iam/fast/pipelined'
import type { Database } from '../../iam/db/schema'
import { isDependencyOutage, PIPELINES_CLOSED } from '../../iam/lib/outage'
import { createThrowawayPg, DATABASE_URL, runOnPg } from '../helpers/test-database'
import { skippedWithout, titled } from '../helpers/skip-notes'

const SERVICE = { dataDir: '.data' } as never

type Row = { n: number; pid: number }
const numbered = (pipelines: Pipelines, n: number) =>
  pipelines.query('select $1::int as n, pg_backend_pid() as pid', [n]).then((r) => r.rows[0] as Row)

/** What a promise came to, without letting a rejection go unhandled meanwhile. */
const settled = <T,>(promise: Promise<T>) => promise.then((value) => ({ value, error: undefined }), (error: unknown) => ({ value: undefined, error }))

// skipped without DATABASE_URL: pipelining is the PostgreSQL driver's (PGlite has one connection and
// no pool); the suite's PostgreSQL + Redis run sets it
describe.skipIf(skippedWithout('postgres'))(titled('pipelined connections on PostgreSQL', 'postgres'), () => {
  let drop: () => Promise<void>
  let url: string
  let db: Kysely<Database>
  let pipelines: Pipelines
  beforeAll(async () => {
    const pg = await createThrowawayPg(DATABASE_URL!)
    drop = pg.drop
    url = pg.url
    db = await createDatabase({ database: { url }, service: SERVICE })
    await warmDatabase(db)
    pipelines = directPipelines(db)!
  }, 60_000)
  afterAll(async () => {
    await db?.destroy()
    await drop?.()
  })

  const backends = async () => new Set((await Promise.all(Array.from({ length: 2 * PIPELINE_CONNECTIONS }, (_, i) => numbered(pipelines, i)))).map((r) => r.pid))
  const terminate = (pids: Iterable<number>) => runOnPg(url, `select pg_terminate_backend(pid) from pg_stat_activity where pid in (${[...pids].join(', ')})`)

  it('opens its connections at boot', () => {
    expect(pipelines.stats()).toEqual({ open: PIPELINE_CONNECTIONS, unanswered: 0 })
  })

  it('answers each of 300 statements sent together with its own row, on no more backends than its connections', async () => {
    const rows = await Promise.all(Array.from({ length: 300 }, (_, n) => numbered(pipelines, n)))
    expect(rows.map((r) => r.n)).toEqual(Array.from({ length: 300 }, (_, n) => n))
    expect(new Set(rows.map((r) => r.pid)).size).toBe(PIPELINE_CONNECTIONS)
    expect(pipelines.stats().unanswered).toBe(0)
  })

  it('fails a failing statement alone: those sent before and after it on its connection are answered', async () => {
    const before = await backends()
    const sent = Array.from({ length: 9 }, (_, n) => settled(pipelines.query('select 10 / $1::int as q', [n === 4 ? 0 : 1])))
    const outcomes = await Promise.all(sent)
    expect(outcomes.map((o) => (o.error ? (o.error as { code?: string }).code : (o.value!.rows[0] as { q: number }).q))).toEqual([10, 10, 10, 10, '22012', 10, 10, 10, 10])
    // division by zero is the statement's own error, not an outage, and no connection was replaced
    expect(isDependencyOutage(outcomes[4]!.error)).toBe(false)
    expect(await backends()).toEqual(before)
  })

  it('fails the statements on a lost connection as an outage, and the next statement opens a new one', async () => {
    const before = await backends()
    const sleeping = Array.from({ length: 4 }, () => settled(pipelines.query('select pg_sleep(30)', [])))
    await terminate(before)
    const outcomes = await Promise.all(sleeping)
    expect(outcomes.map((o) => isDependencyOutage(o.error))).toEqual([true, true, true, true])
    const after = await backends()
    expect(after.size).toBe(PIPELINE_CONNECTIONS)
    expect([...after].filter((pid) => before.has(pid))).toEqual([])
  })

  it('fails a statement unanswered past its bound as an outage, with those behind it on its connection, and replaces that connection', async () => {
    const before = await backends()
    // the slow one goes first, on one connection; of the quick ones after it, some queue behind it
    const slow = settled(pipelines.query('select pg_sleep(10), pg_backend_pid() as pid', []))
    const quick = await Promise.all(Array.from({ length: 6 }, (_, n) => settled(numbered(pipelines, n))))
    const { error } = await slow
    expect(isDependencyOutage(error)).toBe(true)
    const answered = quick.filter((o) => !o.error).map((o) => o.value!)
    const refused = quick.filter((o) => o.error)
    expect(answered.length).toBeGreaterThan(0)
    expect(refused.length).toBeGreaterThan(0)
    expect(refused.every((o) => isDependencyOutage(o.error))).toBe(true)
    // the quick ones answered came from the other connection, which stayed
    const kept = new Set(answered.map((r) => r.pid))
    expect(kept.size).toBe(1)
    const after = await backends()
    expect(after.size).toBe(PIPELINE_CONNECTIONS)
    expect([...after].filter((pid) => before.has(pid))).toEqual([...kept])
    // the backend still sleeping for a client that left
    await terminate([...before].filter((pid) => !kept.has(pid)))
  }, 30_000)

  it('closing answers the statements already sent, then refuses new ones as an outage', async () => {
    const own = await createDatabase({ database: { url }, service: SERVICE })
    await warmDatabase(own)
    const closing = directPipelines(own)!
    const sent = closing.query('select pg_sleep(0.2), 7 as n', [])
    const ended = own.destroy()
    expect((await sent).rows).toEqual([{ pg_sleep: '', n: 7 }])
    await ended
    const refused = await settled(closing.query('select 1', []))
    expect((refused.error as Error).message).toBe(PIPELINES_CLOSED)
    expect(isDependencyOutage(refused.error)).toBe(true)
    expect(closing.stats()).toEqual({ open: 0, unanswered: 0 })
  })
})
