/**
 * `database.replicaMaxLagSeconds` (iam/db/replicas.ts): a replica whose measured lag is past the
 * bound takes no reads until a probe finds it caught up; its reads run on the primary. The pools
 * here are the ReplicaPool interface the set reads (pg.Pool has it), answering who ran a statement.
 */
import { afterEach, describe, expect, it } from 'vitest'
import type { Kysely } from 'kysely'
import { createReplicaSet, type ReplicaPool, type ReplicaSet } from '../../iam/db/replicas'
import type { Database } from '../../iam/db/schema'

/** A pool that says `who` ran each read, and answers the probe's lag query with `lag.seconds`. */
function pool(who: string, lag: { seconds: number | null }): ReplicaPool {
  const client = { query: async () => ({ rows: [{ who }] }), release: () => {} }
  return {
    connect: async () => client,
    query: async () => ({ rows: [{ lag: lag.seconds }] }),
    end: async () => {},
    totalCount: 0,
    idleCount: 0,
  }
}

const sets: ReplicaSet[] = []
afterEach(async () => {
  for (const set of sets.splice(0)) await set.end()
})

function replicaSet(lag: { seconds: number | null }, maxLagSeconds: number | undefined): ReplicaSet {
  const set = createReplicaSet({
    urls: ['postgres://replica.example/iam'],
    openPool: () => pool('replica', lag),
    kyselyOf: () => ({}) as Kysely<Database>,
    primary: pool('primary', { seconds: 0 }),
    maxLagSeconds,
  })
  sets.push(set)
  return set
}
const servedBy = async (set: ReplicaSet) => ((await set.read('select 1', [])).rows[0] as { who: string }).who

describe('a bound on replica lag', () => {
  it('sends the reads of a replica past the bound to the primary, and back once a probe finds it caught up', async () => {
    const lag = { seconds: 120 as number | null }
    const set = replicaSet(lag, 30)
    await set.probe()
    expect(await servedBy(set)).toBe('primary')
    lag.seconds = 2
    await set.probe()
    expect(await servedBy(set)).toBe('replica')
  })

  it('keeps a replica whose lag is unknown (nothing replayed yet) or within the bound', async () => {
    const lag = { seconds: null as number | null }
    const set = replicaSet(lag, 30)
    await set.probe()
    expect(await servedBy(set)).toBe('replica')
    lag.seconds = 30
    await set.probe()
    expect(await servedBy(set)).toBe('replica')
  })

  it('reads from a lagging replica when no bound is set', async () => {
    const set = replicaSet({ seconds: 3600 }, undefined)
    await set.probe()
    expect(await servedBy(set)).toBe('replica')
  })
})
