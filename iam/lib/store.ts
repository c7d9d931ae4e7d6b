/**
 * Shared key-value storage: everything several IAM instances must agree on (HMAC nonces, limits,
 * anomalies, bans, grace-window pairs). Redis through ioredis, or a TTL-aware Map for one process.
 * The atomic primitives run as Lua on Redis and synchronously under a per-key lock in memory, so
 * neither does read-modify-write across awaits.
 *
 * Expiry is judged by the store's clock (`now`, the IAM's clock), not by Redis's: a Redis value is
 * `<expiresAt ms>@<JSON>` and a PX expiry equal to its life only cleans it up later (the IAM clock
 * never runs behind the wall clock, so PX never drops a value the clock still considers alive).
 *
 * Keys are namespaced and versioned: `<prefix>:v2:<area>:<key>` (v2: values carry their expiry), used verbatim. (unstorage is not
 * used for keys: its normalizeKey collapses `::` and drops everything after `?`, so an IPv6-keyed
 * value written by the raw client could not be read back through it.) Every write has a TTL.
 */
import { createHash } from 'node:crypto'
import Redis from 'ioredis'

export interface SharedStore {
  readonly kind: 'memory' | 'redis'
  /** The stored value (JSON round-trip), or null when absent or expired. */
  get<T>(key: string): Promise<T | null>
  set(key: string, value: unknown, ttlMs: number): Promise<void>
  /** Writes only when the key is absent; true when this call wrote it (one winner). */
  setIfAbsent(key: string, value: unknown, ttlMs: number): Promise<boolean>
  delete(key: string): Promise<void>
  /** Atomic +by; the TTL is set when the key is created and kept after. Returns the new value. */
  increment(key: string, ttlMs: number, by?: number): Promise<number>
  /** Remaining life in ms; null when absent. */
  ttl(key: string): Promise<number | null>
  /** The clock that judges expiry (ms since epoch); Redis scripts get it as an argument. */
  now(): number
  /** The Redis connection for Lua scripts (redis kind only). */
  readonly redis: Redis | null
  /** Memory kind: the entries, by full key, for multi-key updates done synchronously inside withLock. */
  readonly memory: TtlMap | null
  /** Runs fn with exclusive access to `key` in this process (per-key serialisation). */
  withLock<T>(key: string, fn: () => Promise<T> | T): Promise<T>
  /** The full key as stored (prefix and version applied). */
  fullKey(key: string): string
  close(): Promise<void>
}

export interface StoreOptions {
  driver: 'memory' | 'redis'
  url?: string
  prefix: string
  /** the clock that judges expiry, for both drivers (ms since epoch); default the wall clock */
  now?: () => number
}

type Entry = { value: unknown; expiresAt: number }

/** A Map with expiry, swept lazily on access and every minute. Synchronous by design. */
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
    this.map.set(key, { value, expiresAt: this.now() + checkTtl(ttlMs) })
  }
  /** Remaining life in ms, null when absent (same meaning as Redis PTTL >= 0). */
  ttl(key: string): number | null {
    const entry = this.get(key)
    return entry ? entry.expiresAt - this.now() : null
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

/** A TTL is required on every write; a missing or absurd one is a bug, not a default. */
function checkTtl(ttlMs: number): number {
  if (!Number.isFinite(ttlMs) || ttlMs <= 0) throw new RangeError(`store TTL must be a positive number of ms, got ${ttlMs}`)
  return Math.max(1, Math.round(ttlMs))
}

function parseStored(raw: unknown): unknown {
  if (typeof raw !== 'string') return raw
  try {
    return JSON.parse(raw)
  } catch {
    return raw
  }
}

/**
 * A Lua script run by EVALSHA, falling back to EVAL (which caches it) when the server does not know
 * it yet (first use, or after SCRIPT FLUSH / a failover). Returns the script's raw reply.
 */
export function defineRedisScript(lua: string): (redis: Redis, keys: string[], args: Array<string | number>) => Promise<unknown> {
  const sha = createHash('sha1').update(lua).digest('hex')
  return async (redis, keys, args) => {
    try {
      return await redis.evalsha(sha, keys.length, ...keys, ...args)
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error
      return redis.eval(lua, keys.length, ...keys, ...args)
    }
  }
}

/**
 * Lua prelude for values judged by the caller's clock: ARGV[1] is now (ms). A clocked value is
 * `<expiresAt ms>@<value>`; `live` answers the value and its expiry, or nil when absent or expired
 * by that clock; `put` writes one with a PX of its remaining life (clean-up only).
 */
export const CLOCKED_LUA = `
local now = tonumber(ARGV[1])
local function live(key)
  local raw = redis.call('GET', key)
  if not raw then return nil end
  local at = string.find(raw, '@', 1, true)
  if not at then return nil end
  local exp = tonumber(string.sub(raw, 1, at - 1))
  if not exp or exp <= now then return nil end
  return string.sub(raw, at + 1), exp
end
local function put(key, value, exp)
  redis.call('SET', key, string.format('%d', exp) .. '@' .. value, 'PX', string.format('%d', math.max(1, exp - now)))
end
`

/** Splits a clocked Redis value (see CLOCKED_LUA); null when expired by `now` or not clocked. */
function openClocked(raw: string | null, now: number): { value: unknown; expiresAt: number } | null {
  if (raw === null) return null
  const at = raw.indexOf('@')
  const expiresAt = at > 0 ? Number(raw.slice(0, at)) : Number.NaN
  if (!(expiresAt > now)) return null
  return { value: parseStored(raw.slice(at + 1)), expiresAt }
}

// KEYS[1] key; ARGV[1] now, ARGV[2] ttl ms, ARGV[3] JSON. Writes only when absent or expired.
const setIfAbsentScript = defineRedisScript(`${CLOCKED_LUA}
if live(KEYS[1]) then return 0 end
put(KEYS[1], ARGV[3], now + tonumber(ARGV[2]))
return 1`)

// KEYS[1] key; ARGV[1] now, ARGV[2] ttl ms, ARGV[3] by. The expiry is set when the counter is created and kept after.
const incrementScript = defineRedisScript(`${CLOCKED_LUA}
local value, exp = live(KEYS[1])
local n = tonumber(ARGV[3])
if value then n = n + tonumber(value) else exp = now + tonumber(ARGV[2]) end
put(KEYS[1], string.format('%d', n), exp)
return n`)

export function createStore(options: StoreOptions): SharedStore {
  if (!/^[A-Za-z0-9_-]+$/.test(options.prefix)) throw new Error(`invalid storage prefix: ${options.prefix}`)
  const base = `${options.prefix}:v2`
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
    return {
      kind: 'redis',
      redis,
      memory: null,
      fullKey,
      withLock,
      now,
      get: async <T>(key: string) => {
        const entry = openClocked(await redis.get(fullKey(key)), now())
        return entry ? (entry.value as T) : null
      },
      set: async (key, value, ttlMs) => {
        const life = checkTtl(ttlMs)
        await redis.set(fullKey(key), `${now() + life}@${JSON.stringify(value)}`, 'PX', life)
      },
      setIfAbsent: async (key, value, ttlMs) =>
        Number(await setIfAbsentScript(redis, [fullKey(key)], [now(), checkTtl(ttlMs), JSON.stringify(value)])) === 1,
      delete: async (key) => {
        await redis.del(fullKey(key))
      },
      increment: async (key, ttlMs, by = 1) =>
        Number(await incrementScript(redis, [fullKey(key)], [now(), checkTtl(ttlMs), Math.trunc(by)])),
      ttl: async (key) => {
        const at = now()
        const entry = openClocked(await redis.get(fullKey(key)), at)
        return entry ? entry.expiresAt - at : null
      },
      close: async () => {
        await redis.quit().catch(() => redis.disconnect())
      },
    }
  }

  const map = new TtlMap(now)
  return {
    kind: 'memory',
    redis: null,
    memory: map,
    fullKey,
    withLock,
    now,
    get: async <T>(key: string) => {
      const entry = map.get(fullKey(key))
      return entry ? (parseStored(entry.value) as T) : null
    },
    // Stored as JSON text, like Redis: callers get copies, never a reference into the store.
    set: async (key, value, ttlMs) => map.set(fullKey(key), JSON.stringify(value), ttlMs),
    setIfAbsent: (key, value, ttlMs) =>
      withLock(key, () => {
        if (map.get(fullKey(key))) return false
        map.set(fullKey(key), JSON.stringify(value), ttlMs)
        return true
      }),
    delete: async (key) => map.delete(fullKey(key)),
    increment: (key, ttlMs, by = 1) =>
      withLock(key, () => {
        checkTtl(ttlMs)
        const entry = map.get(fullKey(key))
        const next = Number(parseStored(entry?.value ?? 0)) + Math.trunc(by)
        if (entry) entry.value = next
        else map.set(fullKey(key), next, ttlMs)
        return next
      }),
    ttl: async (key) => map.ttl(fullKey(key)),
    close: async () => map.dispose(),
  }
}
