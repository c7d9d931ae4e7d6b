/**
 * Shared key-value storage: everything several IAM instances must agree on (HMAC nonces, limits,
 * anomalies, bans, grace-window pairs). unstorage carries plain values (redis driver, or a TTL-aware
 * memory driver for one process); the atomic primitives run as Lua on Redis and under a per-key
 * lock in memory, so neither does read-modify-write across awaits.
 *
 * Keys are namespaced and versioned: `<prefix>:v1:<area>:<key>`. Every write has a TTL.
 */
import Redis from 'ioredis'
import { createStorage, defineDriver, type Storage } from 'unstorage'
import redisDriver from 'unstorage/drivers/redis'

export interface SharedStore {
  readonly kind: 'memory' | 'redis'
  get<T>(key: string): Promise<T | null>
  set(key: string, value: unknown, ttlMs: number): Promise<void>
  /** Writes only when the key is absent; true when this call wrote it (one winner). */
  setIfAbsent(key: string, value: unknown, ttlMs: number): Promise<boolean>
  delete(key: string): Promise<void>
  /** Atomic +by; the TTL is set when the key is created and kept after. Returns the new value. */
  increment(key: string, ttlMs: number, by?: number): Promise<number>
  /** Remaining life in ms; null when absent. */
  ttl(key: string): Promise<number | null>
  /** The Redis connection for Lua scripts (redis kind only). */
  readonly redis: Redis | null
  /** Memory kind: runs fn with exclusive access to `key` (per-key serialisation). */
  withLock<T>(key: string, fn: () => Promise<T> | T): Promise<T>
  /** The full key as stored (prefix and version applied). */
  fullKey(key: string): string
  close(): Promise<void>
}

export interface StoreOptions {
  driver: 'memory' | 'redis'
  url?: string
  prefix: string
  now?: () => number
}

type Entry = { value: unknown; expiresAt: number }

/** A Map with expiry, swept lazily on access and every minute. */
export class TtlMap {
  private readonly map = new Map<string, Entry>()
  private readonly sweeper: NodeJS.Timeout
  constructor(private readonly now: () => number = Date.now) {
    this.sweeper = setInterval(() => this.sweep(), 60_000)
    this.sweeper.unref()
  }
  get(key: string): Entry | undefined {
    const entry = this.map.get(key)
    if (entry && entry.expiresAt <= this.now()) {
      this.map.delete(key)
      return undefined
    }
    return entry
  }
  set(key: string, value: unknown, ttlMs: number): void {
    this.map.set(key, { value, expiresAt: this.now() + ttlMs })
  }
  delete(key: string): void {
    this.map.delete(key)
  }
  keys(): string[] {
    this.sweep()
    return [...this.map.keys()]
  }
  clear(): void {
    this.map.clear()
  }
  private sweep(): void {
    const now = this.now()
    for (const [key, entry] of this.map) if (entry.expiresAt <= now) this.map.delete(key)
  }
  dispose(): void {
    clearInterval(this.sweeper)
  }
}

const DEFAULT_TTL_MS = 24 * 60 * 60 * 1000

const ttlMemoryDriver = defineDriver((opts: { map: TtlMap }) => ({
  name: 'ttl-memory',
  getInstance: () => opts.map,
  hasItem: (key) => opts.map.get(key) !== undefined,
  getItem: (key) => opts.map.get(key)?.value ?? null,
  setItem: (key, value, tOptions) => opts.map.set(key, value, (tOptions?.ttl ?? 0) * 1000 || DEFAULT_TTL_MS),
  removeItem: (key) => opts.map.delete(key),
  getKeys: () => opts.map.keys(),
  clear: () => opts.map.clear(),
  dispose: () => opts.map.dispose(),
}))

// KEYS[1] key; ARGV[1] ttl ms; ARGV[2] by. INCRBY then set the TTL only on creation.
const INCREMENT_LUA = `
local v = redis.call('INCRBY', KEYS[1], ARGV[2])
if tonumber(v) == tonumber(ARGV[2]) then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return v`

export function createStore(options: StoreOptions): SharedStore {
  const base = `${options.prefix}:v1`
  const fullKey = (key: string) => `${base}:${key}`
  const now = options.now ?? Date.now
  // Per-key promise chains: each key's operations run one after another in this process.
  const locks = new Map<string, Promise<unknown>>()
  const withLock = async <T>(key: string, fn: () => Promise<T> | T): Promise<T> => {
    const previous = locks.get(key) ?? Promise.resolve()
    const run = previous.then(fn, fn)
    const settled = run.then(() => undefined, () => undefined)
    locks.set(key, settled)
    settled.then(() => {
      if (locks.get(key) === settled) locks.delete(key)
    })
    return run
  }

  if (options.driver === 'redis') {
    if (!options.url) throw new Error('storage.url is required for the redis driver')
    const redis = new Redis(options.url, { maxRetriesPerRequest: 2, enableOfflineQueue: true, lazyConnect: false })
    const storage: Storage = createStorage({ driver: redisDriver({ base, url: options.url }) })
    return {
      kind: 'redis',
      redis,
      fullKey,
      withLock,
      get: async <T>(key: string) => ((await storage.getItem(key)) ?? null) as T | null,
      set: async (key, value, ttlMs) => {
        // px precision matters for short windows: write through the client, readable by unstorage.
        await redis.set(fullKey(key), JSON.stringify(value), 'PX', Math.max(1, Math.round(ttlMs)))
      },
      setIfAbsent: async (key, value, ttlMs) =>
        (await redis.set(fullKey(key), JSON.stringify(value), 'PX', Math.max(1, Math.round(ttlMs)), 'NX')) === 'OK',
      delete: async (key) => {
        await redis.del(fullKey(key))
      },
      increment: async (key, ttlMs, by = 1) =>
        Number(await redis.eval(INCREMENT_LUA, 1, fullKey(key), String(Math.max(1, Math.round(ttlMs))), String(by))),
      ttl: async (key) => {
        const ms = await redis.pttl(fullKey(key))
        return ms >= 0 ? ms : ms === -1 ? Number.POSITIVE_INFINITY : null
      },
      close: async () => {
        await storage.dispose()
        redis.disconnect()
      },
    }
  }

  const map = new TtlMap(now)
  const storage: Storage = createStorage({ driver: ttlMemoryDriver({ map }) })
  return {
    kind: 'memory',
    redis: null,
    fullKey,
    withLock,
    get: async <T>(key: string) => (map.get(fullKey(key))?.value ?? null) as T | null,
    set: async (key, value, ttlMs) => {
      await storage.setItem(fullKey(key), value as never, { ttl: ttlMs / 1000 })
    },
    setIfAbsent: (key, value, ttlMs) =>
      withLock(key, () => {
        if (map.get(fullKey(key))) return false
        map.set(fullKey(key), value, ttlMs)
        return true
      }),
    delete: async (key) => map.delete(fullKey(key)),
    increment: (key, ttlMs, by = 1) =>
      withLock(key, () => {
        const entry = map.get(fullKey(key))
        const next = Number(entry?.value ?? 0) + by
        if (entry) entry.value = next
        else map.set(fullKey(key), next, ttlMs)
        return next
      }),
    ttl: async (key) => {
      const entry = map.get(fullKey(key))
      return entry ? entry.expiresAt - now() : null
    },
    close: async () => {
      await storage.dispose()
    },
  }
}
