/**
 * The IAM's shared state (HMAC nonces, anomalies, bans, limiter windows, grace-window pairs,
 * challenges): one unstorage Storage, on the memory driver (one process) or the Redis driver
 * (ioredis; several instances; one server, a Sentinel-watched primary or a Cluster: redis-target.ts),
 * chosen by `storage.driver`. Plain reads and writes go through the
 * Storage; the operations that must be atomic run on the driver's own instance (atomic.ts). No other
 * file talks to ioredis.
 *
 * Keys: `<prefix>:v2:<area>:<parts>`, every outside part encoded (keys.ts) so unstorage's key
 * normalisation never merges two keys. Values: `<expiresAt ms>@<JSON>`, judged by the IAM clock
 * (clocked.ts). The layout is the one the hand-written store used, so Redis data (bans) carries over.
 */
import { createStorage, type Storage } from 'unstorage'
import memoryDriver from 'unstorage/drivers/memory'
import redisDriver, { type RedisOptions as RedisDriverOptions } from 'unstorage/drivers/redis'
import { emitSignal } from '../signals'
import type { AtomicOps } from './atomic'
import { memoryAtomicOps, sweepExpired } from './atomic-memory'
import { redisAtomicOps, type RedisClient } from './atomic-redis'
import { checkTtl, openClocked, parseJson, sealClocked } from './clocked'
import { ATOMIC_DRIVERS, refusedDriverMessage, type StorageDriverName } from './drivers'
import { assertStoreKey } from './keys'
import { parseRedisTarget, type RedisTarget } from './redis-target'
import { reviveAfterUnaskedEnd } from './revive'

export { ATOMIC_DRIVERS, refusedDriverMessage, type StorageDriverName } from './drivers'
export { encodeKeyPart, hashKeyPart, storeKey } from './keys'
export type { AtomicOps } from './atomic'

export interface SharedStore {
  readonly kind: StorageDriverName
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
  /** The clock that judges expiry (ms since epoch). */
  now(): number
  /** Runs fn with exclusive access to `key` in this process (per-key serialisation). */
  withLock<T>(key: string, fn: () => Promise<T> | T): Promise<T>
  /** The full key as stored (prefix and version applied); throws for a key unstorage would rewrite; '' answers the prefix. */
  fullKey(key: string): string
  /** The unstorage Storage holding the state (full keys). */
  readonly storage: Storage
  /** The atomic multi-key operations, on the driver's own instance (full keys). */
  readonly atomic: AtomicOps
  /** Resolves when the driver answers (readiness); the memory driver always does. */
  ping(): Promise<void>
  close(): Promise<void>
}

export interface StoreOptions {
  /** `memory` or `redis`; any other unstorage driver is refused (no atomic path) */
  driver: string
  url?: string
  prefix: string
  /** Redis: connect and per-command bound in ms (storage.timeoutMs) */
  timeoutMs?: number
  /** the clock that judges expiry, for both drivers (ms since epoch); default the wall clock */
  now?: () => number
}

type Mount = { kind: StorageDriverName; storage: Storage; atomic: AtomicOps; ping(): Promise<void>; close(): Promise<void> }

function isAtomicDriver(driver: string): driver is StorageDriverName {
  return (ATOMIC_DRIVERS as readonly string[]).includes(driver)
}

/** Memory: unbounded on purpose (an LRU would let a flood of new keys evict bans); swept by the clock. */
function memoryMount(now: () => number): Mount {
  const driver = memoryDriver()
  const map = driver.getInstance?.()
  if (!map) throw new Error('the memory driver exposes no instance')
  const storage = createStorage({ driver })
  const sweeper = setInterval(() => sweepExpired(map, now()), 60_000)
  sweeper.unref()
  return {
    kind: 'memory',
    storage,
    atomic: memoryAtomicOps(map),
    ping: async () => {},
    close: async () => {
      clearInterval(sweeper)
      await storage.dispose()
    },
  }
}

/**
 * The unstorage Redis driver's options for `target`. An outage is an answer, not a queue: while
 * Redis is unreachable (or, under Sentinel, while no primary is known, or on a Cluster while a slot
 * has no primary) a command fails at once (no offline queue, no retry of a command whose connection
 * dropped) or within timeoutMs (a connection that hangs), and the request is answered 503. The
 * client keeps reconnecting on its own (through the sentinels to whichever primary they name, or
 * to the Cluster's nodes), so service resumes by itself.
 */
function redisDriverOptions(target: RedisTarget, timeoutMs: number): RedisDriverOptions {
  const perConnection = {
    // Commands sent before the first connection wait for it (a caller may use the store at once); a
    // first connection that fails flushes them (maxRetriesPerRequest 0). From then on nothing
    // queues behind a reconnect (the 'ready' handler in redisMount).
    maxRetriesPerRequest: 0,
    connectTimeout: timeoutMs,
    commandTimeout: timeoutMs,
    ...(target.kind === 'single' ? {} : { username: target.username, password: target.password }),
  }
  const retryStrategy = (attempt: number) => Math.min(attempt * 100, 1000)
  // commands issued in one event-loop turn (many requests at once) leave in one write and Redis
  // reads them in one go, a third less Redis CPU per rotation (docs/performance.md, "Refresh
  // rotation"); each command still has its own reply, error and timeout
  const enableAutoPipelining = true
  if (target.kind === 'cluster') {
    return {
      preConnect: true,
      cluster: target.nodes,
      clusterOptions: {
        enableOfflineQueue: true,
        enableAutoPipelining,
        clusterRetryStrategy: retryStrategy,
        // writes and reads both go to the slot's primary: a replica may lag behind a limiter step
        scaleReads: 'master',
        slotsRefreshTimeout: timeoutMs,
        redisOptions: perConnection,
      },
    }
  }
  const common = {
    preConnect: true,
    lazyConnect: false,
    enableOfflineQueue: true,
    enableAutoPipelining,
    retryStrategy,
    // a primary demoted to replica answers writes with READONLY: reconnect (through the sentinels,
    // to the new primary) without resending; the command that met it is answered 503 (redis-errors.ts)
    reconnectOnError: (error: Error) => /^READONLY /.test(error.message),
    ...perConnection,
  }
  if (target.kind === 'single') return { url: target.url, ...common }
  return {
    ...common,
    sentinels: target.sentinels,
    name: target.name,
    db: target.db,
    role: 'master',
    sentinelCommandTimeout: timeoutMs,
    // subscribed to the sentinels' +switch-master: a primary that lost its role but still answers
    // (a partition) is left at once instead of when a write meets READONLY
    failoverDetector: true,
  }
}

function redisMount(url: string | undefined, timeoutMs: number): Mount {
  if (!url) throw new Error('storage.url is required for the redis driver')
  const driver = redisDriver(redisDriverOptions(parseRedisTarget(url), timeoutMs))
  const client = driver.getInstance?.() as RedisClient | undefined
  if (!client) throw new Error('the redis driver exposes no instance')
  // Connection failures are reported to the commands that hit them; the client's 'error' events
  // (repeated on every reconnect attempt) are only counted for /metrics.
  client.on('error', () => emitSignal({ kind: 'dependencyError', dependency: 'storage' }))
  client.once('ready', () => {
    client.options.enableOfflineQueue = false
  })
  // a client ioredis ended on its own connects again (revive.ts says when that happens)
  const revival = reviveAfterUnaskedEnd(client)
  return {
    kind: 'redis',
    storage: createStorage({ driver }),
    atomic: redisAtomicOps(client),
    ping: async () => {
      await client.ping()
    },
    close: async () => {
      revival.stop()
      await client.quit().catch(() => client.disconnect())
    },
  }
}

export function createStore(options: StoreOptions): SharedStore {
  if (!/^[A-Za-z0-9_-]+$/.test(options.prefix)) throw new Error(`invalid storage prefix: ${options.prefix}`)
  if (!isAtomicDriver(options.driver)) throw new Error(refusedDriverMessage(options.driver))
  const base = `${options.prefix}:v2`
  // '' answers the prefix every key of this store starts with (for listings)
  const fullKey = (key: string) => (key === '' ? `${base}:` : `${base}:${assertStoreKey(key)}`)
  const now = options.now ?? Date.now
  const mount = options.driver === 'redis' ? redisMount(options.url, options.timeoutMs ?? 1000) : memoryMount(now)
  const { storage, atomic } = mount

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
  const live = async (key: string, at: number) => openClocked(await storage.getItemRaw(fullKey(key)), at)

  return {
    kind: mount.kind,
    storage,
    atomic,
    fullKey,
    withLock,
    now,
    ping: mount.ping,
    close: mount.close,
    get: async <T>(key: string) => {
      const entry = await live(key, now())
      return entry ? (parseJson(entry.json) as T) : null
    },
    // Stored as JSON text on both drivers: callers get copies, never a reference into the store.
    set: async (key, value, ttlMs) => {
      const life = checkTtl(ttlMs)
      // the driver's own expiry (Redis EX, whole seconds) only cleans up; the clocked value decides
      await storage.setItemRaw(fullKey(key), sealClocked(JSON.stringify(value), now() + life), { ttl: Math.ceil(life / 1000) })
    },
    setIfAbsent: async (key, value, ttlMs) => atomic.setIfAbsent(fullKey(key), JSON.stringify(value), ttlMs, now()),
    delete: async (key) => storage.removeItem(fullKey(key)),
    increment: async (key, ttlMs, by = 1) => atomic.increment(fullKey(key), ttlMs, by, now()),
    ttl: async (key) => {
      const at = now()
      const entry = await live(key, at)
      return entry ? entry.expiresAt - at : null
    },
  }
}
