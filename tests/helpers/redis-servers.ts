/**
 * Throw-away Redis topologies for the high-availability drills: a primary with replicas watched by
 * sentinels, or a three-primary Cluster. Each server is a `redis-server` child on a loopback port
 * below the ephemeral range (fake-iam.ts freePort), with no persistence and its own temporary
 * directory, removed again by `stop()`. Nothing is installed: the drills are skipped without a
 * `redis-server` on the PATH.
 */
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import Redis from 'ioredis'
import { freePort } from './fake-iam'
import { waitUntil } from './wait'

/** True when `redis-server` (and `redis-cli`, from the same package) can be run. */
export const HAS_REDIS_SERVER = spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0

export interface RedisProcess {
  port: number
  process: ChildProcess
  /** A client of this one server (closed by stop). */
  client(): Redis
  /** SIGKILL: the server vanishes without a word, as a crashed host does. */
  kill(): void
  stop(): Promise<void>
}


async function startServer(args: string[], opts: { sentinel?: string } = {}): Promise<RedisProcess> {
  const port = await freePort()
  const dir = mkdtempSync(join(tmpdir(), 'redis-drill-'))
  let argv: string[]
  if (opts.sentinel) {
    // a sentinel rewrites its own config file, so it gets one of its own
    const file = join(dir, 'sentinel.conf')
    writeFileSync(file, `port ${port}\nbind 127.0.0.1\nprotected-mode no\ndir ${dir}\n${opts.sentinel}`)
    argv = [file, '--sentinel']
  } else {
    argv = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, ...args]
  }
  const child = spawn('redis-server', argv, { stdio: 'ignore' })
  const own: Redis[] = []
  const client = () => {
    const c = new Redis({ host: '127.0.0.1', port, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null })
    c.on('error', () => {})
    own.push(c)
    return c
  }
  await waitUntil(
    async () => {
      const probe = new Redis({ host: '127.0.0.1', port, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null })
      probe.on('error', () => {})
      const ok = await probe.connect().then(() => probe.ping(), () => null).then((reply) => reply === 'PONG', () => false)
      probe.disconnect()
      return ok
    },
    `redis-server on port ${port}`,
    10_000,
  )
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  return {
    port,
    process: child,
    client,
    kill: () => void child.kill('SIGKILL'),
    stop: async () => {
      for (const c of own) c.disconnect()
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
      await exited
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** The `role` line of INFO replication, and whether a replica's link to its primary is up. */
async function replication(client: Redis): Promise<{ role: string; linkUp: boolean }> {
  if (client.status === 'wait') await client.connect()
  const info = await client.info('replication')
  return { role: /role:(\w+)/.exec(info)?.[1] ?? '', linkUp: /master_link_status:up/.test(info) }
}

export interface SentinelSet {
  name: string
  primary: RedisProcess
  replicas: RedisProcess[]
  sentinels: RedisProcess[]
  /** redis+sentinel://127.0.0.1:p1,.../name */
  url: string
  stop(): Promise<void>
}

/**
 * A primary, `replicas` replicas and `sentinels` sentinels (quorum: a majority of them) that
 * declare the primary down after `downAfterMs` without an answer.
 */
export async function startSentinelSet(opts: { replicas: number; sentinels: number; downAfterMs: number }): Promise<SentinelSet> {
  const name = 'iamdrill'
  const primary = await startServer([])
  const replicas = await Promise.all(Array.from({ length: opts.replicas }, () => startServer(['--replicaof', '127.0.0.1', String(primary.port)])))
  for (const replica of replicas) {
    const c = replica.client()
    await waitUntil(async () => (await replication(c)).linkUp, `replica ${replica.port} to sync`, 10_000)
  }
  const quorum = Math.floor(opts.sentinels / 2) + 1
  const conf = [
    `sentinel monitor ${name} 127.0.0.1 ${primary.port} ${quorum}`,
    `sentinel down-after-milliseconds ${name} ${opts.downAfterMs}`,
    `sentinel failover-timeout ${name} ${Math.max(2000, 4 * opts.downAfterMs)}`,
    `sentinel parallel-syncs ${name} 1`,
    '',
  ].join('\n')
  const sentinels = await Promise.all(Array.from({ length: opts.sentinels }, () => startServer([], { sentinel: conf })))
  // every sentinel knows the replicas (from the primary's INFO) before the drill may kill it
  for (const sentinel of sentinels) {
    const c = sentinel.client()
    await c.connect()
    await waitUntil(async () => ((await c.call('SENTINEL', 'REPLICAS', name)) as unknown[]).length === opts.replicas, `sentinel ${sentinel.port} to see the replicas`, 15_000)
  }
  return {
    name,
    primary,
    replicas,
    sentinels,
    url: `redis+sentinel://${sentinels.map((s) => `127.0.0.1:${s.port}`).join(',')}/${name}`,
    stop: async () => {
      await Promise.all([...sentinels, primary, ...replicas].map((s) => s.stop()))
    },
  }
}

/** The primary's port the sentinels name now. */
export async function currentPrimaryPort(set: SentinelSet): Promise<number> {
  const c = set.sentinels[0]!.client()
  await c.connect()
  const [, port] = (await c.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', set.name)) as [string, string]
  c.disconnect()
  return Number(port)
}

export interface RedisCluster {
  nodes: RedisProcess[]
  /** redis+cluster://127.0.0.1:p1,... */
  url: string
  stop(): Promise<void>
}

/** `primaries` Cluster primaries (no replicas) covering the 16384 slots, ready to serve. */
export async function startRedisCluster(primaries = 3): Promise<RedisCluster> {
  const nodes = await Promise.all(
    Array.from({ length: primaries }, async () =>
      // the bus port defaults to port + 10000, which could land in the ephemeral range: chosen too
      startServer(['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--cluster-port', String(await freePort()), '--cluster-node-timeout', '2000']),
    ),
  )
  const addresses = nodes.map((n) => `127.0.0.1:${n.port}`)
  await promisify(execFile)('redis-cli', ['--cluster', 'create', ...addresses, '--cluster-yes'], { timeout: 30_000 })
  for (const node of nodes) {
    const c = node.client()
    await c.connect()
    await waitUntil(async () => /cluster_state:ok/.test((await c.call('CLUSTER', 'INFO')) as string), `cluster node ${node.port} to be ok`, 20_000)
  }
  return {
    nodes,
    url: `redis+cluster://${addresses.join(',')}`,
    stop: async () => {
      await Promise.all(nodes.map((n) => n.stop()))
    },
  }
}
