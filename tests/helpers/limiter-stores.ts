/**
 * Stores for the store and rate-limiter unit tests: a memory store on a clock the test moves, and a
 * Redis store (REDIS_URL) under a unique prefix that `dropStore` removes again.
 */
import { randomBytes } from 'node:crypto'
import type { Cluster, Redis } from 'ioredis'
import { afterEach } from 'vitest'
import { createStore, type SharedStore } from '../../iam/lib/storage'
import { titled } from './skip-notes'

export const REDIS_URL = process.env.REDIS_URL

export interface ClockedStore {
  store: SharedStore
  /** moves the memory store's clock forward */
  advance(ms: number): void
  now(): number
}

export function memoryStore(): ClockedStore {
  let time = Date.UTC(2026, 0, 1)
  const store = createStore({ driver: 'memory', prefix: `t${randomBytes(4).toString('hex')}`, now: () => time })
  return { store, advance: (ms) => void (time += ms), now: () => time }
}

export function redisStore(prefix = `t${randomBytes(5).toString('hex')}`, now?: () => number): SharedStore {
  if (!REDIS_URL) throw new Error('REDIS_URL is not set')
  return createStore({ driver: 'redis', url: REDIS_URL, prefix, now })
}

/**
 * A Redis store on a clock the test moves forward: the wall clock plus an offset, like the IAM test
 * build's clock (never behind the wall clock, so Redis's clean-up expiries never come first).
 */
export function redisClockedStore(): ClockedStore {
  let offset = 0
  const now = () => Date.now() + offset
  return { store: redisStore(undefined, now), advance: (ms) => void (offset += ms), now }
}

/** The ioredis client under a Redis store's unstorage mount (tests reach past the store to check Redis itself). */
export function redisClientOf(store: SharedStore): Redis | Cluster {
  const client = store.storage.getMount('').driver.getInstance?.() as Redis | Cluster | undefined
  if (store.kind !== 'redis' || !client) throw new Error('not a Redis store')
  return client
}

/** Keys under `prefix` on every primary: unstorage's listing scans one node only on a Cluster. */
async function clusterKeys(cluster: Cluster, prefix: string): Promise<string[]> {
  const perNode = await Promise.all(cluster.nodes('master').map((node) => node.keys(`${prefix}*`)))
  return perNode.flat()
}

/**
 * Every key the store holds under its prefix, with its remaining life in ms: by the store's clock
 * on the memory driver, Redis's own PTTL on Redis (Infinity = no TTL there).
 */
export async function keysWithTtl(store: SharedStore): Promise<Array<{ key: string; ttlMs: number }>> {
  const prefix = store.fullKey('')
  const client = store.kind === 'redis' ? redisClientOf(store) : undefined
  const keys = client?.isCluster ? await clusterKeys(client as Cluster, prefix) : (await store.storage.getKeys()).filter((key) => key.startsWith(prefix))
  if (store.kind === 'memory') {
    const ttls = await Promise.all(keys.map((key) => store.ttl(key.slice(prefix.length))))
    return keys.map((key, i) => ({ key, ttlMs: ttls[i] ?? 0 })).filter((k) => k.ttlMs > 0)
  }
  const ttls = await Promise.all(keys.map((key) => client!.pttl(key)))
  return keys.map((key, i) => ({ key, ttlMs: ttls[i] === -1 ? Number.POSITIVE_INFINITY : ttls[i] }))
}

/** The remaining life (store clock) of a key given in full, as limiters' keysOf answers them. */
export function ttlOfFullKey(store: SharedStore, fullKey: string): Promise<number | null> {
  return store.ttl(fullKey.slice(store.fullKey('').length))
}

/** Deletes everything under the store's prefix and closes it. */
export async function dropStore(store: SharedStore): Promise<void> {
  if (store.kind === 'redis') await store.atomic.deleteAll((await keysWithTtl(store)).map((k) => k.key))
  await store.close()
}

/**
 * The two store backends for `describe.each`: memory always, Redis only when REDIS_URL names a
 * server (the PostgreSQL + Redis run of the suite sets it), so `skip` carries that reason.
 */
export const STORE_BACKENDS = [
  { backend: 'memory', make: () => memoryStore().store, clocked: memoryStore, skip: false, label: 'memory' },
  // skipped without REDIS_URL: no Redis server to talk to (the PostgreSQL + Redis run sets it)
  { backend: 'redis', make: () => redisStore(), clocked: redisClockedStore, skip: !REDIS_URL, label: titled('redis', 'redis') },
]

/** Inside a describe: a `newStore` whose stores are dropped after each test. */
export function useStores(make: () => SharedStore): () => SharedStore {
  const newClocked = useClockedStores(() => ({ store: make(), advance: () => {}, now: Date.now }))
  return () => newClocked().store
}

/** Inside a describe: stores on a clock the test moves, dropped after each test. */
export function useClockedStores(make: () => ClockedStore): () => ClockedStore {
  const stores: SharedStore[] = []
  afterEach(async () => {
    await Promise.all(stores.splice(0).map(dropStore))
  })
  return () => {
    const clocked = make()
    stores.push(clocked.store)
    return clocked
  }
}
