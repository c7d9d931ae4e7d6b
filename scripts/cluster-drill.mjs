// npm run drill:cluster: CI's PostgreSQL + Redis pass (.ci/run: the unit, iam and gateway files
// scripts/store-bound-tests.mjs names) against a Redis Cluster of three
// primaries instead of one server. Starts the primaries (`redis-server` in cluster mode, no
// persistence, a temporary directory each) on free loopback ports, joins them with
// `redis-cli --cluster create`, waits for cluster_state:ok, runs vitest with
// REDIS_URL=redis+cluster://..., stops the servers and exits with vitest's status.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run drill:cluster
//   DATABASE_URL=... npm run drill:cluster -- tests/iam/x.test.ts ...   # those files only (a failure again)
//
// DATABASE_URL is required (the pass it repeats is the PostgreSQL one). Not part of .ci/run: it
// takes as long as that pass again; docs/operations.md, "Redis high availability", has its figures.
import { execFileSync, spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'

const root = resolve(import.meta.dirname, '..')
const PRIMARIES = 3

function fail(message) {
  process.stderr.write(`cluster-drill: ${message}\n`)
  process.exit(2)
}

if (!process.env.DATABASE_URL) fail('DATABASE_URL is required (a PostgreSQL the tests may create databases in)')
if (spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status !== 0) fail('redis-server is not on the PATH')

// Above Linux's ephemeral range (32768-60999 by default), where no outgoing connection takes a port
// between the probe and redis-server's listen, and apart from the 20000-31999 the tests pick their
// own servers' ports from (tests/helpers/fake-iam.ts freePort).
const PICK_FROM = 61000
const PICK_SPAN = 4000
const taken = new Set()
function tryListen(port) {
  const server = createServer()
  return new Promise((done) => {
    server.once('error', () => done(false))
    server.listen(port, '127.0.0.1', () => server.close(() => done(true)))
  })
}
async function freePort() {
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = PICK_FROM + Math.floor(Math.random() * PICK_SPAN)
    if (taken.has(port) || !(await tryListen(port))) continue
    taken.add(port)
    return port
  }
  fail(`no free loopback port in ${PICK_FROM}-${PICK_FROM + PICK_SPAN - 1}`)
}

const redisCli = (port, ...args) => execFileSync('redis-cli', ['-h', '127.0.0.1', '-p', String(port), ...args], {
    encoding: 'utf8',
    timeout: 5000,
    // "Could not connect" while a server starts is expected: the loop below asks again
    stdio: ['ignore', 'pipe', 'ignore'],
  })

const servers = []
let stopped = false
function stopServers() {
  if (stopped) return
  stopped = true
  for (const server of servers) {
    if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGKILL')
    rmSync(server.dir, { recursive: true, force: true })
  }
}
process.on('exit', stopServers)
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(130))

async function startPrimary() {
  const port = await freePort()
  // the bus port defaults to port + 10000, which would be past 65535 here: chosen too
  const busPort = await freePort()
  const dir = mkdtempSync(join(tmpdir(), 'cluster-drill-'))
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--cluster-port', String(busPort), '--cluster-node-timeout', '2000'],
    { stdio: 'ignore' },
  )
  servers.push({ port, dir, child })
  for (let i = 0; i < 100; i++) {
    if (child.exitCode !== null) fail(`redis-server on port ${port} exited with ${child.exitCode}`)
    try {
      if (redisCli(port, 'ping').trim() === 'PONG') return port
    } catch {
      // not listening yet
    }
    await sleep(100)
  }
  fail(`redis-server on port ${port} did not answer within 10 s`)
}

const ports = []
for (let i = 0; i < PRIMARIES; i++) ports.push(await startPrimary())
const addresses = ports.map((port) => `127.0.0.1:${port}`)
execFileSync('redis-cli', ['--cluster', 'create', ...addresses, '--cluster-yes'], { stdio: 'ignore', timeout: 30_000 })
for (const port of ports) {
  let ok = false
  for (let i = 0; i < 200 && !ok; i++) {
    ok = /cluster_state:ok/.test(redisCli(port, 'cluster', 'info'))
    if (!ok) await sleep(100)
  }
  if (!ok) fail(`cluster node ${port} did not reach cluster_state:ok within 20 s`)
}
const redisUrl = `redis+cluster://${addresses.join(',')}`

// the same files as .ci/run's second pass, or the ones named after `--`
const named = process.argv.slice(2)
const storeBound = named.length > 0
  ? named
  : execFileSync(process.execPath, [join(root, 'scripts', 'store-bound-tests.mjs'), 'tests/unit', 'tests/gateway', 'tests/iam'], { cwd: root, encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
if (storeBound.length === 0) fail('scripts/store-bound-tests.mjs found no store-bound test file')

process.stdout.write(`cluster-drill: ${PRIMARIES} primaries at ${redisUrl}; ${storeBound.length} ${named.length > 0 ? 'named' : 'store-bound unit, iam and gateway'} files\n`)
const startedAt = Date.now()
const vitest = spawn(
  join(root, 'node_modules', '.bin', 'vitest'),
  ['run', '--project', 'unit', '--project', 'iam', '--project', 'gateway', ...storeBound],
  { cwd: root, stdio: 'inherit', env: { ...process.env, CI: 'true', REDIS_URL: redisUrl } },
)
const status = await new Promise((done) => vitest.once('exit', (code, signal) => done(code ?? (signal ? 1 : 0))))
process.stdout.write(`\ncluster-drill: vitest exited with ${status} after ${Math.round((Date.now() - startedAt) / 1000)} s on ${redisUrl}\n`)
stopServers()
process.exit(status)
