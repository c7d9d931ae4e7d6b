/**
 * iam/lib/storage/revive.ts: a Redis client that ioredis ended on its own (its status `end`, no
 * retry after it, as a Sentinel connect cut by its own fail-over detector leaves it) connects
 * again; one this process closed stays closed. On a real client and server: runs with REDIS_URL.
 */
import { once } from 'node:events'
import Redis from 'ioredis'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { parseRedisTarget } from '../../iam/lib/storage/redis-target'
import { reviveAfterUnaskedEnd } from '../../iam/lib/storage/revive'
import { waitUntil } from '../helpers/wait'
import { skippedWithout, titled } from '../helpers/skip-notes'

const REDIS_URL = process.env.REDIS_URL

/**
 * A Redis client of REDIS_URL's server (ioredis reads no redis+cluster:// or redis+sentinel:// URL
 * itself). On a Cluster URL: a client of its first node. The revival is for a Redis client, the
 * kind ioredis ends for good (a single server's or a Sentinel's); a Cluster client never ends on its
 * own while its clusterRetryStrategy answers a delay (iam/lib/storage/index.ts always does; ioredis
 * built/cluster/index.js, handleCloseEvent), and one ended by disconnect() moves on to `close`.
 */
function newClient(): Redis {
  const target = parseRedisTarget(REDIS_URL!)
  const options = { lazyConnect: true, maxRetriesPerRequest: 0 }
  if (target.kind === 'single') return new Redis(target.url, options)
  const credentials = { username: target.username, password: target.password }
  if (target.kind === 'cluster') return new Redis({ ...options, ...credentials, ...target.nodes[0]! })
  return new Redis({ ...options, ...credentials, sentinels: target.sentinels, name: target.name, db: target.db })
}

// skipped without REDIS_URL: a real server is what ends and takes the client back (CI's PostgreSQL + Redis run sets it)
describe.skipIf(skippedWithout('redis'))(titled('a Redis client ended without being asked, on redis', 'redis'), () => {
  const clients: Redis[] = []
  afterEach(() => {
    vi.useRealTimers()
    for (const client of clients.splice(0)) client.disconnect()
  })

  it('connects again after an end this process did not ask for', async () => {
    const client = newClient()
    clients.push(client)
    await client.connect()
    reviveAfterUnaskedEnd(client)
    const ended = once(client, 'end')
    // ends it with no retry after it, as ioredis's own failed connect does
    client.disconnect()
    await ended
    await waitUntil(() => client.status === 'ready', 'the client to connect again', 5000)
    expect(await client.ping()).toBe('PONG')
  })

  it('leaves a client closed once stop was called before the close', async () => {
    const client = newClient()
    clients.push(client)
    await client.connect()
    const revival = reviveAfterUnaskedEnd(client)
    let connecting = 0
    client.on('connecting', () => (connecting += 1))
    revival.stop()
    // faked before the end, so a revival timer set at the end would be one this test runs
    vi.useFakeTimers({ toFake: ['setTimeout'] })
    const ended = once(client, 'end')
    client.disconnect()
    await ended
    vi.advanceTimersByTime(1000)
    expect({ status: client.status, connecting }).toEqual({ status: 'end', connecting: 0 })
  })
})
