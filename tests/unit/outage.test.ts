import { createServer, type Server } from 'node:net'
import { PGlite } from '@electric-sql/pglite'
import Redis from 'ioredis'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createStore } from '../../iam/lib/storage'
import { isDependencyOutage } from '../../iam/lib/outage'

// Real driver errors, produced against a port nothing answers on or a server that hangs up.
let closedPort: number
let hangUp: Server
let hangUpPort: number

const listen = (server: Server) =>
  new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)))

beforeAll(async () => {
  const probe = createServer()
  closedPort = await listen(probe)
  await new Promise<void>((resolve) => probe.close(() => resolve()))
  // accepts, then closes each connection at once: a dependency going away mid-conversation
  hangUp = createServer((socket) => socket.destroy())
  hangUpPort = await listen(hangUp)
})
afterAll(() => new Promise<void>((resolve) => hangUp.close(() => resolve())))

const rejection = async (promise: Promise<unknown>): Promise<unknown> => {
  try {
    await promise
  } catch (error) {
    return error
  }
  throw new Error('expected a rejection')
}

describe('dependency outages are told from other failures', () => {
  it('counts pg failing to connect (refused, and hung up on) as an outage', async () => {
    const refused = new pg.Client({ connectionString: `postgres://x@127.0.0.1:${closedPort}/x` })
    expect(isDependencyOutage(await rejection(refused.connect()))).toBe(true)
    const dropped = new pg.Client({ connectionString: `postgres://x@127.0.0.1:${hangUpPort}/x` })
    expect(isDependencyOutage(await rejection(dropped.connect()))).toBe(true)
  })

  it('counts a pg pool that cannot get a connection in time as an outage', async () => {
    // a server that accepts and never answers: only the connection timeout ends the wait
    const silent = createServer(() => {})
    const port = await listen(silent)
    const pool = new pg.Pool({ connectionString: `postgres://x@127.0.0.1:${port}/x`, connectionTimeoutMillis: 50 })
    try {
      expect(isDependencyOutage(await rejection(pool.query('select 1')))).toBe(true)
    } finally {
      await pool.end().catch(() => {})
      silent.close()
    }
  })

  it('counts a pg client whose handshake outlives its connect timeout as an outage (pg says "timeout expired")', async () => {
    const silent = createServer(() => {})
    const port = await listen(silent)
    const client = new pg.Client({ connectionString: `postgres://x@127.0.0.1:${port}/x`, connectionTimeoutMillis: 50 })
    try {
      const error = await rejection(client.connect())
      expect((error as Error).message).toBe('timeout expired')
      expect(isDependencyOutage(error)).toBe(true)
    } finally {
      silent.close()
    }
  })

  it('counts Redis commands while disconnected as an outage, through a wrapping cause too', async () => {
    const store = createStore({ driver: 'redis', url: `redis://127.0.0.1:${closedPort}`, prefix: 't', timeoutMs: 100 })
    try {
      const error = await rejection(store.get('k'))
      expect(isDependencyOutage(error)).toBe(true)
      expect(isDependencyOutage(new Error('handler failed', { cause: error }))).toBe(true)
    } finally {
      await store.close()
    }
  })

  it('counts a store whose sentinels are all unreachable, or whose Cluster nodes are, as an outage within its timeout', async () => {
    for (const url of [`redis+sentinel://127.0.0.1:${closedPort}/iam-primary`, `redis+cluster://127.0.0.1:${closedPort}`]) {
      const store = createStore({ driver: 'redis', url, prefix: 't', timeoutMs: 100 })
      try {
        const error = await rejection(store.increment('k', 1000))
        expect({ url, outage: isDependencyOutage(error), message: error instanceof Error ? error.message : error }).toMatchObject({ url, outage: true })
      } finally {
        await store.close()
      }
    }
  })

  it('counts Sentinel and Cluster answers without a primary as an outage', () => {
    for (const message of [
      "READONLY You can't write against a read only replica.",
      'CLUSTERDOWN The cluster is down',
      'TRYAGAIN Multiple keys request during rehashing of slot',
      "Cluster isn't ready and enableOfflineQueue options is false",
      'All sentinels are unreachable. Retrying from scratch after 10ms.',
    ]) {
      expect({ message, outage: isDependencyOutage(new Error(message)) }).toEqual({ message, outage: true })
    }
    expect(isDependencyOutage(new Error("CROSSSLOT Keys in request don't hash to the same slot"))).toBe(false)
  })

  it('counts a Redis connection dropped under a command as an outage', async () => {
    const redis = new Redis(`redis://127.0.0.1:${hangUpPort}`, { maxRetriesPerRequest: 0, lazyConnect: true, retryStrategy: () => null })
    redis.on('error', () => {})
    const error = await rejection(redis.connect().then(() => redis.get('k')))
    redis.disconnect()
    expect(isDependencyOutage(error)).toBe(true)
  })

  it('does not count SQL errors (a unique violation, a syntax error) or plain bugs as outages', async () => {
    const db = await PGlite.create()
    try {
      await db.exec('create table t (id int primary key); insert into t values (1)')
      expect(isDependencyOutage(await rejection(db.query('insert into t values (1)')))).toBe(false)
      expect(isDependencyOutage(await rejection(db.query('selec 1')))).toBe(false)
    } finally {
      await db.close()
    }
    expect(isDependencyOutage(new TypeError("Cannot read properties of undefined (reading 'id')"))).toBe(false)
    expect(isDependencyOutage('ECONNREFUSED')).toBe(false)
  }, 60_000)
})
