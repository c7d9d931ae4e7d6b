/**
 * A throw-away PostgreSQL primary with one streaming replica, for the read-replica drill: each a
 * `postgres` child of the Debian binaries (PG_BIN) on a free loopback port, in its own temporary
 * directory, fsync off, pg_stat_statements loaded (the drill counts statements per server). The
 * replica is a `pg_basebackup -R` copy of the primary, so it streams from it at once. `stop()`
 * removes both. Skipped where the binaries are not installed (HAS_POSTGRES_BINARIES).
 *
 * initdb refuses to run as root: as root, the servers run as the `postgres` account the package
 * created (their directories are handed to it first).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { freePort } from './fake-iam'
import { waitUntil } from './wait'

export const PG_BIN = '/usr/lib/postgresql/15/bin'
export const HAS_POSTGRES_BINARIES = existsSync(join(PG_BIN, 'initdb')) && existsSync(join(PG_BIN, 'pg_basebackup'))

const run = promisify(execFile)

/** The uid and gid the servers run as: the `postgres` account under root, else this process's own. */
async function serverAccount(): Promise<{ uid: number; gid: number } | undefined> {
  if (process.getuid?.() !== 0) return undefined
  const { stdout } = await run('id', ['-u', 'postgres']).catch(() => ({ stdout: '' }))
  const { stdout: gid } = await run('id', ['-g', 'postgres']).catch(() => ({ stdout: '' }))
  if (!stdout.trim()) throw new Error('running as root, and there is no postgres account to run initdb as')
  return { uid: Number(stdout.trim()), gid: Number(gid.trim()) }
}

export interface PgServer {
  port: number
  /** postgres://postgres@127.0.0.1:<port>/<database> */
  url(database?: string): string
  process: ChildProcess
  /** fast shutdown (SIGINT): open connections are ended with 57P01, new ones refused */
  stop(): Promise<void>
}

export interface PrimaryAndReplica {
  primary: PgServer
  replica: PgServer
  stop(): Promise<void>
}

const SERVER_SETTINGS = ['-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off', '-c', 'full_page_writes=off', '-c', 'shared_preload_libraries=pg_stat_statements', '-c', 'max_connections=60']

async function startServer(dataDir: string, socketDir: string, account: { uid: number; gid: number } | undefined): Promise<PgServer> {
  const port = await freePort()
  const child = spawn(join(PG_BIN, 'postgres'), ['-D', dataDir, '-p', String(port), '-k', socketDir, ...SERVER_SETTINGS], { stdio: ['ignore', 'ignore', 'pipe'], ...account })
  const output: string[] = []
  child.stderr?.on('data', (chunk: Buffer) => output.push(chunk.toString()))
  const url = (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`
  const { default: pg } = await import('pg')
  await waitUntil(
    async () => {
      if (child.exitCode !== null) throw new Error(`postgres exited with ${child.exitCode}:\n${output.join('')}`)
      const client = new pg.Client({ connectionString: url(), connectionTimeoutMillis: 1000 })
      client.on('error', () => {})
      const ok = await client.connect().then(() => client.query('select 1').then(() => true), () => false)
      await client.end().catch(() => {})
      return ok
    },
    `postgres on port ${port}`,
    20_000,
  )
  const exited = new Promise<void>((resolve) => (child.exitCode !== null ? resolve() : child.once('exit', () => resolve())))
  return {
    port,
    url,
    process: child,
    async stop() {
      if (child.exitCode === null) child.kill('SIGINT')
      await exited
    },
  }
}

/** initdb, the primary, pg_basebackup -R, the replica; both answering when it resolves. */
export async function startPrimaryAndReplica(): Promise<PrimaryAndReplica> {
  const account = await serverAccount()
  const base = mkdtempSync(join(tmpdir(), 'pg-drill-'))
  if (account) chownSync(base, account.uid, account.gid)
  const primaryDir = join(base, 'primary')
  const replicaDir = join(base, 'replica')
  const asServer = account ? { uid: account.uid, gid: account.gid } : {}
  const servers: PgServer[] = []
  const stop = async () => {
    await Promise.all(servers.map((s) => s.stop()))
    rmSync(base, { recursive: true, force: true })
  }
  try {
    // trust on loopback (the default pg_hba.conf has replication lines for 127.0.0.1 too); -N: no fsync of the new files
    await run(join(PG_BIN, 'initdb'), ['-D', primaryDir, '-U', 'postgres', '-A', 'trust', '-N', '-E', 'UTF8', '--no-locale'], asServer)
    const primary = await startServer(primaryDir, base, account)
    servers.push(primary)
    await run(join(PG_BIN, 'pg_basebackup'), ['-h', '127.0.0.1', '-p', String(primary.port), '-U', 'postgres', '-D', replicaDir, '-R', '-X', 'stream', '-c', 'fast', '--no-sync'], asServer)
    const replica = await startServer(replicaDir, base, account)
    servers.push(replica)
    return { primary, replica, stop }
  } catch (error) {
    await stop()
    throw error
  }
}
