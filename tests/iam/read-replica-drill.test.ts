/**
 * Read-replica drill: an IAM on a PostgreSQL primary of its own with one streaming replica
 * (database.replicas; tests/helpers/postgres-servers.ts starts both). What db/replicas.ts promises:
 * - the reads a call site marks with mayLag (the admin lists) run on the replica, counted by
 *   pg_stat_statements on each server, and nothing else does;
 * - with the replica's replay paused (a replica as far behind as it gets), a revoked API token and
 *   a signed-out session are refused on the very next request: those reads stay on the primary;
 * - the lag is a gauge per replica, and its health another;
 * - the replica stopped in the middle of a burst of admin list reads: every answer is still a 200
 *   (the primary answers what the replica no longer can), and the instance stays ready.
 *
 * Runs where the Debian PostgreSQL 15 binaries are installed and the suite runs against PostgreSQL
 * (DATABASE_URL set: the PostgreSQL pass); the servers are on free loopback ports and removed
 * afterwards. docs/operations.md, "Read replicas".
 */
import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, PROXY_CONFIG, refresh, signupUser, type Session } from '../helpers/accounts'
import { startIam, type IamServer } from '../helpers/iam-server'
import { HAS_POSTGRES_BINARIES, startPrimaryAndReplica, type PrimaryAndReplica } from '../helpers/postgres-servers'
import { scrapeMetrics } from '../helpers/prometheus'
import { waitUntil } from '../helpers/wait'
import { manage, newToken, refOf, verify, WIDE_LIMITERS } from './api-tokens-http'
import { authed } from './second-factor-http'

const run = HAS_POSTGRES_BINARIES && !!process.env.DATABASE_URL
const BURST_MS = 5000
/** the replica is stopped once the burst had this many answers (about a second of it) */
const STOP_AFTER_ANSWERS = 40
/** the probe's period (db/replicas.ts PROBE_EVERY_MS) and a margin for a loaded runner */
const PROBED_WITHIN_MS = 12_000

let servers: PrimaryAndReplica
let iam: IamServer
let admin: Session
let replicaName: string

/** One statement on `url`, on a connection of its own. */
async function query<R>(url: string, text: string): Promise<R[]> {
  const { default: pg } = await import('pg')
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return (await client.query(text)).rows as R[]
  } finally {
    await client.end()
  }
}

// The admin lists' statements as pg_stat_statements normalises them: the account list without a
// search (features/admin/users.ts searchUsers) and the organization list (features/admin/orgs.ts).
const LIST_STATEMENTS = `query like '%from "users" order by "id" asc limit%' or query like '%from memberships m where m.org_id = o.id%'`
// the account export's snapshot (features/users/account-export.ts): a read-only repeatable-read transaction
const EXPORT_SNAPSHOT = `query = 'start transaction isolation level repeatable read read only'`
const callsOf = async (url: string, where: string) =>
  (await query<{ calls: number }>(url, `select coalesce(sum(calls), 0)::int as calls from pg_stat_statements where ${where}`))[0]!.calls
const listCalls = (url: string) => callsOf(url, LIST_STATEMENTS)

const adminList = (path: '/admin/users' | '/admin/orgs') => authed(iam, admin, 'GET', path)

beforeAll(async () => {
  if (!run) return
  servers = await startPrimaryAndReplica()
  await query(servers.primary.url(), 'create database iam')
  await query(servers.primary.url('iam'), 'create extension pg_stat_statements')
  await waitUntil(() => query(servers.replica.url('iam'), 'select 1 from pg_stat_statements limit 1').then(() => true, () => false), 'the replica to have the iam database')
  replicaName = `127.0.0.1:${servers.replica.port}`
  iam = await startIam({
    share: { databaseUrl: servers.primary.url('iam'), storagePrefix: `replicas${randomBytes(4).toString('hex')}` },
    config: { ...PROXY_CONFIG, database: { replicas: [servers.replica.url('iam')] }, rate_limiters: { apiTokensLimiters: WIDE_LIMITERS } },
    // the test build's routes: /__test/platform-admin grants the role as users:grant-admin does
    env: { IAM_TEST_ROUTES: '1' },
  })
  admin = await signupUser(iam, { client: { ip: '198.51.100.61' } })
  const granted = await fetch(`${iam.url}/__test/platform-admin`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: admin.email, admin: true }) })
  expect(granted.status, await granted.clone().text()).toBe(200)
}, 60_000)

afterAll(async () => {
  await iam?.stop()
  await servers?.stop()
})

describe.skipIf(!run)('read replicas drill (needs the PostgreSQL 15 binaries; runs with DATABASE_URL set)', () => {
  it('runs the admin lists and the account export on the replica and not on the primary', async () => {
    const before = { primary: await listCalls(servers.primary.url('iam')), replica: await listCalls(servers.replica.url('iam')) }
    for (let i = 0; i < 5; i++) {
      for (const path of ['/admin/users', '/admin/orgs'] as const) {
        const res = await adminList(path)
        expect(res.status, await res.clone().text()).toBe(200)
      }
    }
    const after = { primary: await listCalls(servers.primary.url('iam')), replica: await listCalls(servers.replica.url('iam')) }
    expect(after.replica - before.replica).toBe(10)
    expect(after.primary - before.primary).toBe(0)

    const exportsBefore = { primary: await callsOf(servers.primary.url('iam'), EXPORT_SNAPSHOT), replica: await callsOf(servers.replica.url('iam'), EXPORT_SNAPSHOT) }
    const exported = await authed(iam, admin, 'GET', '/auth/export')
    expect(exported.status, await exported.clone().text()).toBe(200)
    expect((await callsOf(servers.replica.url('iam'), EXPORT_SNAPSHOT)) - exportsBefore.replica).toBe(1)
    expect((await callsOf(servers.primary.url('iam'), EXPORT_SNAPSHOT)) - exportsBefore.primary).toBe(0)

    const metrics = await scrapeMetrics(iam.url)
    expect(metrics.value('iam_db_lagging_reads_total', { served_by: 'replica' })).toBeGreaterThanOrEqual(11)
    expect(metrics.value('iam_db_replica_healthy', { replica: replicaName })).toBe(1)
  })

  it('refuses a revoked API token and a signed out session on the next request while the replica is behind, and reports the lag', async () => {
    const user = await signupUser(iam, { client: { ip: '198.51.100.62' } })
    const token = await newToken(iam, user)
    expect((await verify(iam, token.rawApiKey, 'full')).status).toBe(200)
    // the replica stops replaying: from here on it holds the database as it is now
    await query(servers.replica.url('iam'), 'select pg_wal_replay_pause()')
    try {
      expect((await manage(iam, user, 'revoke', refOf(token))).status).toBe(200)
      const revoked = await verify(iam, token.rawApiKey, 'full')
      expect(revoked.status).toBe(401)

      const other = await signupUser(iam, { client: { ip: '198.51.100.63' } })
      expect((await call(iam, 'POST', '/auth/logout', { client: other, cookies: { session: other.refreshToken }, bearer: other.accessToken })).status).toBe(200)
      expect((await authed(iam, other, 'GET', '/secret/data')).status).toBe(401)
      expect((await refresh(iam, other)).status).toBe(401)

      // the admin list is the replica's: the account made after the pause is not in it yet
      const listed = (await (await authed(iam, admin, 'GET', `/admin/users?q=${encodeURIComponent(other.email)}`)).json()) as { data: { users: unknown[] } }
      expect(listed.data.users).toEqual([])
      // ... and an account missing there is looked up on the primary before the export calls it gone
      const fresh = await signupUser(iam, { client: { ip: '198.51.100.64' } })
      const exported = await authed(iam, fresh, 'GET', '/auth/export')
      expect(exported.status, await exported.clone().text()).toBe(200)
      expect(((await exported.json()) as { profile: { email: string } }).profile.email).toBe(fresh.email)

      // the probe sees the replica behind (it received WAL it has not replayed)
      await waitUntil(async () => ((await scrapeMetrics(iam.url)).value('iam_db_replica_lag_seconds', { replica: replicaName }) ?? 0) > 0, 'a lag above 0', PROBED_WITHIN_MS)
    } finally {
      await query(servers.replica.url('iam'), 'select pg_wal_replay_resume()')
    }
    await waitUntil(async () => (await scrapeMetrics(iam.url)).value('iam_db_replica_lag_seconds', { replica: replicaName }) === 0, 'the lag back at 0', PROBED_WITHIN_MS)
  }, 40_000)

  it('answers every admin list read with a 200 while the replica is stopped mid-burst, the primary serving them, and stays ready', async () => {
    const before = await scrapeMetrics(iam.url)
    const statuses = new Map<number, number>()
    const started = performance.now()
    let stoppedAt = 0
    const worker = async (path: '/admin/users' | '/admin/orgs') => {
      while (performance.now() - started < BURST_MS) {
        const res = await adminList(path)
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1)
        await res.body?.cancel()
      }
    }
    const answered = () => [...statuses.values()].reduce((a, b) => a + b, 0)
    const stopper = (async () => {
      await waitUntil(() => answered() >= STOP_AFTER_ANSWERS, `${STOP_AFTER_ANSWERS} answers before the stop`, BURST_MS)
      stoppedAt = performance.now()
      await servers.replica.stop()
    })()
    await Promise.all([worker('/admin/users'), worker('/admin/orgs'), worker('/admin/users'), stopper])
    expect(stoppedAt).toBeGreaterThan(0)
    expect([...statuses.keys()]).toEqual([200])

    const after = await scrapeMetrics(iam.url)
    const moved = (servedBy: string) => (after.value('iam_db_lagging_reads_total', { served_by: servedBy }) ?? 0) - (before.value('iam_db_lagging_reads_total', { served_by: servedBy }) ?? 0)
    expect(moved('replica')).toBeGreaterThan(0)
    expect(moved('primary')).toBeGreaterThan(0)
    expect(after.value('iam_db_replica_healthy', { replica: replicaName })).toBe(0)
    console.log(`[replica drill] ${answered()} admin list answers in ${BURST_MS} ms, the replica stopped after ${(stoppedAt - started).toFixed(0)} ms; ${moved('replica')} reads on the replica, ${moved('primary')} on the primary`)

    const ready = await fetch(`${iam.url}/health/ready`)
    expect(ready.status, await ready.clone().text()).toBe(200)
  }, 30_000)
})
