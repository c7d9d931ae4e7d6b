import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { defineRedisScript } from '../../iam/lib/storage/atomic-redis'
import { parseConfig } from '../../iam/lib/config'
import { createStore, storeKey } from '../../iam/lib/storage'
import { dropStore, keysWithTtl, memoryStore, redisClientOf, redisStore, STORE_BACKENDS, useClockedStores, useStores } from '../helpers/limiter-stores'
import { skippedWithout, titled } from '../helpers/skip-notes'


// `noRedisServer` (the backends' `skip`): the Redis backend's cases are skipped without REDIS_URL (no Redis server; the PostgreSQL + Redis run sets it)
describe.each(STORE_BACKENDS)('shared store on $label', ({ make, clocked, skip: noRedisServer }) => {
  const newStore = useStores(make)
  const clockedStore = useClockedStores(clocked)

  // skipped only when this kind's server is absent: the Redis kind runs with REDIS_URL (CI's PostgreSQL + Redis run)
  it.skipIf(noRedisServer)('judges expiry by its own clock, not the backend\'s: an entry dies when that clock passes its TTL', async () => {
    const { store, advance } = clockedStore()
    await store.set('clock:v', 'value', 60_000)
    await store.setIfAbsent('clock:n', 1, 60_000)
    await store.increment('clock:c', 60_000, 7)
    // (the Redis store's clock also runs with the wall clock: a second of margin)
    advance(59_000)
    expect(await store.get('clock:v')).toBe('value')
    expect(await store.ttl('clock:v')).toBeLessThanOrEqual(1_000)
    advance(1_000)
    expect(await store.get('clock:v')).toBeNull()
    expect(await store.ttl('clock:v')).toBeNull()
    // an expired single-use key can be claimed again, and an expired counter starts again
    expect(await store.setIfAbsent('clock:n', 2, 60_000)).toBe(true)
    expect(await store.get('clock:n')).toBe(2)
    expect(await store.increment('clock:c', 60_000)).toBe(1)
  })

  // skipped only when this kind's server is absent: the Redis kind runs with REDIS_URL (CI's PostgreSQL + Redis run)
  it.skipIf(noRedisServer)('keeps a counter\'s expiry of creation across increments, by its clock', async () => {
    const { store, advance } = clockedStore()
    await store.increment('clock:k', 10_000)
    advance(9_000)
    expect(await store.increment('clock:k', 10_000)).toBe(2)
    advance(1_000)
    expect(await store.increment('clock:k', 10_000)).toBe(1)
  })

  // skipped only when this kind's server is absent: the Redis kind runs with REDIS_URL (CI's PostgreSQL + Redis run)
  it.skipIf(noRedisServer)('lets exactly one of 200 concurrent setIfAbsent calls win', async () => {
    const store = newStore()
    const results = await Promise.all(Array.from({ length: 200 }, (_, i) => store.setIfAbsent('nonce:abc', { i }, 60_000)))
    expect(results.filter(Boolean)).toHaveLength(1)
    const winner = results.indexOf(true)
    expect(await store.get('nonce:abc')).toEqual({ i: winner })
  })

  // skipped only when this kind's server is absent: the Redis kind runs with REDIS_URL (CI's PostgreSQL + Redis run)
  it.skipIf(noRedisServer)('increments exactly under 200 concurrent calls and keeps the TTL of creation', async () => {
    const store = newStore()
    const values = await Promise.all(Array.from({ length: 200 }, () => store.increment('count:x', 30_000)))
    expect(new Set(values).size).toBe(200)
    expect(Math.max(...values)).toBe(200)
    expect(await store.increment('count:x', 999_999, 5)).toBe(205)
    expect(await store.get('count:x')).toBe(205)
    const ttl = await store.ttl('count:x')
    expect(ttl).toBeGreaterThan(0)
    expect(ttl).toBeLessThanOrEqual(30_000)
  })

  // skipped only when this kind's server is absent: the Redis kind runs with REDIS_URL (CI's PostgreSQL + Redis run)
  it.skipIf(noRedisServer)('round-trips JSON values and hands out copies', async () => {
    const store = newStore()
    const value = { a: 1, list: ['x'], nested: { ok: true } }
    await store.set('json:v', value, 60_000)
    value.list.push('mutated')
    expect(await store.get('json:v')).toEqual({ a: 1, list: ['x'], nested: { ok: true } })
    await store.set('json:s', 'plain', 60_000)
    expect(await store.get('json:s')).toBe('plain')
    expect(await store.get('json:absent')).toBeNull()
  })

  // skipped only when this kind's server is absent: the Redis kind runs with REDIS_URL (CI's PostgreSQL + Redis run)
  it.skipIf(noRedisServer)('refuses a key unstorage would rewrite ("::", "/", "?") and keeps encoded ones apart', async () => {
    const store = newStore()
    await expect(store.set('ip:::1', 'loopback6', 60_000)).rejects.toThrow(/rewritten by unstorage/)
    await expect(store.setIfAbsent('path:/a/b?x=1', 1, 60_000)).rejects.toThrow(/rewritten by unstorage/)
    await expect(store.increment('ip:', 60_000)).rejects.toThrow(/rewritten by unstorage/)
    await store.set(storeKey('ip', '::1'), 'loopback6', 60_000)
    await store.set(storeKey('ip', '1'), 'other', 60_000)
    await store.set(storeKey('path', '/a/b?x=1'), 'query', 60_000)
    expect(await store.get(storeKey('ip', '::1'))).toBe('loopback6')
    expect(await store.get(storeKey('ip', '1'))).toBe('other')
    expect(await store.get(storeKey('path', '/a/b?x=1'))).toBe('query')
    expect(await store.get(storeKey('path', '/a/b'))).toBeNull()
  })

  // skipped only when this kind's server is absent: the Redis kind runs with REDIS_URL (CI's PostgreSQL + Redis run)
  it.skipIf(noRedisServer)('stores every key under <prefix>:v2: with the TTL it was given', async () => {
    const store = newStore()
    await store.set('area:k', 1, 45_000)
    await store.setIfAbsent('area:n', 1, 10_000)
    await store.increment('area:c', 20_000)
    const keys = await keysWithTtl(store)
    expect(keys.map((k) => k.key).sort()).toEqual(['area:c', 'area:k', 'area:n'].map((k) => store.fullKey(k)))
    for (const { key, ttlMs } of keys) {
      expect(key.startsWith(store.fullKey(''))).toBe(true)
      expect(ttlMs).toBeGreaterThan(0)
    }
    expect(store.fullKey('area:k')).toMatch(/^t[0-9a-f]+:v2:area:k$/)
    expect(await store.ttl('area:k')).toBeLessThanOrEqual(45_000)
  })

  // skipped only when this kind's server is absent: the Redis kind runs with REDIS_URL (CI's PostgreSQL + Redis run)
  it.skipIf(noRedisServer)('deletes, and answers null TTL for an absent key', async () => {
    const store = newStore()
    await store.set('d:k', 1, 60_000)
    await store.delete('d:k')
    expect(await store.get('d:k')).toBeNull()
    expect(await store.ttl('d:k')).toBeNull()
  })

  // skipped only when this kind's server is absent: the Redis kind runs with REDIS_URL (CI's PostgreSQL + Redis run)
  it.skipIf(noRedisServer)('refuses a write without a positive TTL', async () => {
    const store = newStore()
    await expect(store.set('t:k', 1, 0)).rejects.toThrow(/TTL/)
    await expect(store.setIfAbsent('t:k', 1, Number.NaN)).rejects.toThrow(/TTL/)
    await expect(store.increment('t:k', Number.POSITIVE_INFINITY)).rejects.toThrow(/TTL/)
  })
})

describe('memory store over time', () => {
  it('expires values at their TTL and lets setIfAbsent win again after expiry', async () => {
    const { store, advance } = memoryStore()
    expect(await store.setIfAbsent('n', 'first', 5_000)).toBe(true)
    advance(4_999)
    expect(await store.get('n')).toBe('first')
    expect(await store.ttl('n')).toBe(1)
    expect(await store.setIfAbsent('n', 'second', 5_000)).toBe(false)
    advance(1)
    expect(await store.get('n')).toBeNull()
    expect(await store.setIfAbsent('n', 'second', 5_000)).toBe(true)
  })

  it('does not extend an increment counter TTL on later increments', async () => {
    const { store, advance } = memoryStore()
    await store.increment('c', 10_000)
    advance(6_000)
    await store.increment('c', 10_000)
    expect(await store.ttl('c')).toBe(4_000)
    advance(4_000)
    expect(await store.increment('c', 10_000)).toBe(1)
  })

  it('keeps stores with different prefixes apart', async () => {
    const a = createStore({ driver: 'memory', prefix: 'a' })
    const b = createStore({ driver: 'memory', prefix: 'b' })
    await a.set('k', 1, 1000)
    expect(await b.get('k')).toBeNull()
    expect(() => createStore({ driver: 'memory', prefix: 'bad:prefix' })).toThrow(/prefix/)
  })
})

describe('storage drivers', () => {
  it('refuses an unstorage driver without an atomic path, naming it and saying why', () => {
    expect(() => createStore({ driver: 'fs', prefix: 'p' })).toThrow(/"fs" is refused: .*atomic/)
    expect(() => parseConfig({ storage: { driver: 'lru-cache' } })).toThrow(/storage\.driver: storage driver "lru-cache" is refused: .*atomic/)
    expect(parseConfig({ storage: { driver: 'memory' } }).storage.driver).toBe('memory')
  })
})

// Only with a Redis server (REDIS_URL).
describe.skipIf(skippedWithout('redis'))(titled('redis scripts', 'redis'), () => {
  it('runs a script the server has not cached yet through EVAL, then by its SHA', async () => {
    const store = redisStore()
    try {
      // a unique body: certainly unknown to the server, so the first call takes the NOSCRIPT fallback
      const script = defineRedisScript(`-- ${randomBytes(8).toString('hex')}\nreturn tonumber(ARGV[1]) + 1`)
      expect(await script(redisClientOf(store), [], [41])).toBe(42)
      expect(await script(redisClientOf(store), [], [1])).toBe(2)
    } finally {
      await dropStore(store)
    }
  })

  it('shares values between two connections to the same prefix', async () => {
    const prefix = `t${randomBytes(5).toString('hex')}`
    const a = redisStore(prefix)
    const b = redisStore(prefix)
    try {
      const wins = await Promise.all(
        Array.from({ length: 100 }, (_, i) => (i % 2 ? a : b).setIfAbsent('one', i, 60_000)),
      )
      expect(wins.filter(Boolean)).toHaveLength(1)
      expect(await b.get('one')).toBe(await a.get('one'))
    } finally {
      await b.close()
      await dropStore(a)
    }
  })
})
