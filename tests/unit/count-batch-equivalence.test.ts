/**
 * iam/fast/count-batch.ts (on iam/fast/lanes.ts) answers concurrent counted verifications of one token with one
 * `UPDATE ... usage_count + n` per batch instead of one UPDATE each. It must count exactly what
 * one plain UPDATE per verification counts, one after the other: the same final usage_count, the
 * same set of per-call counts (each call its own number), the same calls refused, the same row left.
 * On PGlite and, with DATABASE_URL, on PostgreSQL (where two instances also share one token).
 */
import type { Kysely } from 'kysely'
import { describe, expect, it } from 'vitest'
import { createDatabase } from '../../iam/db/database'
import type { Database } from '../../iam/db/schema'
import { countUseBatched } from '../../iam/features/api-tokens/verify'
import { countUsesStatement, type UseConditions } from '../../iam/features/api-tokens/repository'
import { NOW, reset, snapshot } from './data-layer-cases'
import { dataLayerDbForSuite, KINDS } from './data-layer-db'

const N = 40
const HOT: UseConditions = { hash: 'tok-full', privilege: 'full', at: NOW, ip: '198.51.100.9', bypassIp: false }
const SEEDED_COUNT = 7 // tok-full's usage_count in the seeded rows

/** One plain UPDATE per verification (what count-batch replaces): the same statement with n = 1, built by Kysely. */
async function countPlainly(db: Kysely<Database>, c: UseConditions): Promise<number | undefined> {
  const { rows } = await db.executeQuery(countUsesStatement.build(db, { ...c, uses: 1 }).compile())
  return (rows[0] as { usage_count: number } | undefined)?.usage_count
}

const batched = async (db: Kysely<Database>, c: UseConditions) => (await countUseBatched(db, c))?.usage_count

/** `calls` started in waves of `wave` per event-loop turn: later waves arrive while a batch is in flight. */
async function burst(calls: Array<() => Promise<number | undefined>>, wave: number): Promise<Array<number | undefined>> {
  const answers: Array<Promise<number | undefined>> = []
  for (let i = 0; i < calls.length; i++) {
    if (i > 0 && i % wave === 0) await new Promise((resolve) => setImmediate(resolve))
    answers.push(calls[i]!())
  }
  return Promise.all(answers)
}

const sorted = (counts: Array<number | undefined>) => [...counts].sort((a, b) => (a ?? -1) - (b ?? -1))
const range = (from: number, n: number) => Array.from({ length: n }, (_, i) => from + i)

describe.each(KINDS)('count-batch against one plain UPDATE per verification on $label', ({ kind, skip: kindAbsent }) => {
  const t = dataLayerDbForSuite(kind, kindAbsent)

  /** One database for the batched run that counts the statements it answers (compiledOnce's go through executeQuery). */
  const counting = (db: Kysely<Database>) => {
    const seen = { statements: 0 }
    const wrapped = db.withPlugin({ transformQuery: (a) => a.node, transformResult: async (a) => (seen.statements++, a.result) })
    return { db: wrapped, seen }
  }

  // `skip`: PostgreSQL runs only with DATABASE_URL, PGlite only without it (see KINDS)
  it.skipIf(kindAbsent).each([
    { wave: N, how: 'all in one turn' },
    { wave: 7, how: 'in waves arriving while a batch is in flight' },
  ])(`${N} concurrent verifications of one token ($how) add exactly ${N}, each with its own count, as ${N} sequential plain UPDATEs do`, async ({ wave }) => {
    await reset(t.db)
    const { db, seen } = counting(t.db)
    const counts = await burst(Array.from({ length: N }, () => () => batched(db, HOT)), wave)
    const end = await snapshot(t.db)

    await reset(t.db)
    const plain: Array<number | undefined> = []
    for (let i = 0; i < N; i++) plain.push(await countPlainly(t.db, HOT))
    const plainEnd = await snapshot(t.db)

    expect(new Set(counts).size).toBe(N)
    expect(sorted(counts)).toEqual(sorted(plain))
    expect(sorted(plain)).toEqual(range(SEEDED_COUNT + 1, N))
    expect(end).toEqual(plainEnd)
    // and it did share: fewer UPDATEs than verifications
    expect(seen.statements).toBeLessThan(N)
    expect(seen.statements).toBeGreaterThanOrEqual(1)
  })

  // skipped where KINDS says: PostgreSQL runs with DATABASE_URL (CI's PostgreSQL + Redis run), PGlite without it
  it.skipIf(kindAbsent)('a burst over several tokens and conditions counts and refuses exactly what plain UPDATEs one by one do', async () => {
    const conditions: UseConditions[] = [
      HOT,
      { ...HOT, hash: 'tok-ip', ip: '203.0.113.5' },
      { ...HOT, hash: 'tok-ip', ip: '203.0.113.6' }, // not on its allow-list: refused
      { ...HOT, hash: 'tok-ip', ip: '203.0.113.6', bypassIp: true },
      { ...HOT, privilege: 'demo' }, // another privilege: refused
      { ...HOT, hash: 'tok-suspended' }, // suspended: refused
      { ...HOT, hash: 'no-such-token' },
    ]
    const calls = Array.from({ length: 70 }, (_, i) => conditions[i % conditions.length]!)
    // per condition: how many were refused; per token: the counts given (one token counted under
    // two conditions shares its numbers between them in arrival order, which may differ)
    const answersBy = (list: Array<number | undefined>) => ({
      refused: conditions.map((c, k) => [`${c.hash} ${c.privilege} ${c.ip} ${c.bypassIp}`, list.filter((n, i) => i % conditions.length === k && n === undefined).length]),
      counts: Object.fromEntries([...new Set(conditions.map((c) => c.hash))].map((hash) => [hash, sorted(list.filter((n, i) => calls[i]!.hash === hash && n !== undefined))])),
    })

    await reset(t.db)
    const counts = await burst(calls.map((c) => () => batched(t.db, c)), 9)
    const end = await snapshot(t.db)
    await reset(t.db)
    const plain: Array<number | undefined> = []
    for (const c of calls) plain.push(await countPlainly(t.db, c))
    const plainEnd = await snapshot(t.db)

    expect(answersBy(counts)).toEqual(answersBy(plain))
    expect(end).toEqual(plainEnd)
    // not vacuous: some counted, some refused
    expect(plain.filter((c) => c === undefined).length).toBe(40)
  })

  // skipped on PGlite: an embedded database belongs to one process, so there is no second instance
  it.skipIf(kindAbsent || kind === 'pglite')(`two instances verifying one token at once add exactly 2 x ${N}, no count given twice${kind === 'pglite' ? ' (skipped on PGlite: one process holds an embedded database, so there are no two instances)' : ''}`, async () => {
    await reset(t.db)
    const other = await createDatabase({ database: { url: t.url! }, service: { dataDir: '.data' } as never })
    try {
      const calls = Array.from({ length: 2 * N }, (_, i) => () => batched(i % 2 ? other : t.db, HOT))
      const counts = await burst(calls, 5)
      expect(sorted(counts)).toEqual(range(SEEDED_COUNT + 1, 2 * N))
    } finally {
      await other.destroy()
    }
  })
})
