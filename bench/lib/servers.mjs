/**
 * The processes of a benchmark run: the built IAM and gateway (production builds, `npm run build`),
 * the baselines (bench/baseline-server.mjs), throw-away PostgreSQL databases. Every server starts
 * through scripts/lib/run-server.ts, the runner the tests and `npm start` use.
 */
import { execFileSync, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { get as httpsGet } from 'node:https'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildIfStale, entryOf, GATEWAY_APP, IAM_APP, ROOT } from '../../scripts/lib/build.ts'
import { startNodeServer } from '../../scripts/lib/run-server.ts'

export const IAM_OUTPUT = process.env.IAM_OUTPUT_DIR || join(ROOT, 'iam', '.output')
export const GATEWAY_OUTPUT = process.env.GATEWAY_OUTPUT_DIR || join(ROOT, '.output')

/** `npm run build` for whichever app is missing or older than its sources (`gateway: false`: the IAM only). */
export function buildServers({ gateway = true } = {}) {
  buildIfStale(IAM_APP, IAM_OUTPUT)
  if (gateway) buildIfStale(GATEWAY_APP, GATEWAY_OUTPUT)
}

/** An empty PostgreSQL database next to `baseUrl` with pg_stat_statements; drop() removes it. */
export async function createPgDatabase(baseUrl) {
  const { default: pg } = await import('pg')
  const name = `iam_bench_${randomBytes(5).toString('hex')}`
  const run = async (url, statement) => {
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    try {
      return await client.query(statement)
    } finally {
      await client.end()
    }
  }
  await run(baseUrl, `create database ${name}`)
  const url = new URL(baseUrl)
  url.pathname = `/${name}`
  // preloaded on the dev PostgreSQL; without it the per-statement breakdown is left out
  const statStatements = await run(url.toString(), 'create extension if not exists pg_stat_statements').then(() => true, () => false)
  return { url: url.toString(), name, statStatements, drop: () => run(baseUrl, `drop database if exists ${name} with (force)`) }
}

// a loaded machine starts a server slowly: a start is a failure only after this long
const START_TIMEOUT_MS = 180_000

// limits no benchmark should reach: the limiters still run (their cost is part of every route)
const WIDE = { points: 1_000_000_000, duration: 60, blockDuration: 1 }

/**
 * The IAM's config for a run: defaults (production Argon2id, request log at info) but wide limits.
 * `fastIntrospection: false` starts the provider-only IAM of the introspection comparison;
 * `allowLoopbackRequests` (the development setting the tests use) the IAM of the metadata-document
 * row, whose documents are served on loopback.
 */
export function benchIamConfig({ dataDir, databaseUrl, redisUrl, fastIntrospection = true, allowLoopbackRequests = false }) {
  return {
    service: { dataDir },
    database: { url: databaseUrl },
    storage: redisUrl ? { driver: 'redis', url: redisUrl, prefix: `bench${randomBytes(4).toString('hex')}` } : { driver: 'memory', prefix: 'bench' },
    password: { breachCheck: { enabled: false } },
    // the OpenID rows register their clients themselves (bench/lib/oidc.mjs)
    oidc: { registration: { enabled: true, access: 'open' }, fastIntrospection, allowLoopbackRequests },
    emailChecks: { mx: false },
    // one bench user signs in thousands of times: the velocity rule would rightly answer a re-login;
    // widened like the limiters, it is still evaluated on every request
    anomalies: { velocity: { count: 1_000_000_000 } },
    // the same for the live-session cap (its count is still read on every full authentication)
    jwt: { refresh_tokens: { maxAllowedSessionsPerUser: 1_000_000_000 } },
    rate_limiters: {
      apiTokensLimiters: {
        consumptionRateLimiter: WIDE,
        generalUnionLimiter: { burst: WIDE, slow: WIDE },
        operationRateLimits: Object.fromEntries(
          ['newTokenCreationLimiter', 'revokeTokensLimiter', 'getMetadataTokenLimiter', 'rotationRateLimiter', 'ipRestrictionUpdate', 'privilegeUpdate'].map((k) => [k, WIDE]),
        ),
      },
      signup: WIDE,
      login: WIDE,
      refresh: WIDE,
      check: WIDE,
      oidcRegistration: WIDE,
      loginAccountDelay: { freeAttempts: 1_000_000_000 },
    },
  }
}

/** The parent's environment without what would override a child's own database and storage. */
const childEnv = (extra) => {
  const { DATABASE_URL: _d, REDIS_URL: _r, NITRO_PORT: _p, NITRO_HOST: _h, ...env } = process.env
  return { ...env, PORT: '0', HOST: '127.0.0.1', ...extra }
}

/**
 * A built app (`output`) in a temp dir of its own holding its config file (`configEnv` names it).
 * Its output (the request log) is read and dropped, so a full pipe never blocks it and the
 * harness holds no log in memory.
 */
function startBuilt({ name, output, configEnv, config, env = {} }) {
  const dir = mkdtempSync(join(tmpdir(), `${name.toLowerCase()}-bench-`))
  const configPath = join(dir, 'config.json')
  writeFileSync(configPath, JSON.stringify(config(dir)))
  return startNodeServer({
    name,
    entry: entryOf(output),
    cwd: dir,
    env: childEnv({ ...env, NODE_ENV: 'development', [configEnv]: configPath }),
    keepLogs: false,
    startTimeoutMs: START_TIMEOUT_MS,
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  })
}

/** `config` with each of `overrides`' top-level sections merged into its own (one level deep: a section's keys replace the bench's). */
function withOverrides(config, overrides) {
  const merged = { ...config }
  for (const [key, value] of Object.entries(overrides)) {
    merged[key] = value && typeof value === 'object' && !Array.isArray(value) ? { ...(config[key] ?? {}), ...value } : value
  }
  return merged
}

/**
 * The built IAM with the bench config, booted (migrated). Without `databaseUrl`: PGlite on disk in
 * `dataDir` (a temp dir of its own unless given). `env` adds to its environment; `overrides`: config
 * sections merged over the bench's.
 */
export async function startIam({ databaseUrl, redisUrl, dataDir: fixedDataDir, fastIntrospection, allowLoopbackRequests, env, overrides = {} }) {
  const config = (dataDir) => withOverrides(benchIamConfig({ dataDir: fixedDataDir ?? dataDir, databaseUrl, redisUrl, fastIntrospection, allowLoopbackRequests }), overrides)
  const server = await startBuilt({ name: 'IAM', output: IAM_OUTPUT, configEnv: 'IAM_CONFIG', config, env })
  // "Listening" comes before boot (migrations) finished; /health waits for it
  await fetch(`${server.url}/health`)
  return server
}

/** The built gateway in front of `iamUrl` (no HMAC: the IAM of the run takes unsigned calls). */
export function startGateway(iamUrl) {
  const config = () => ({ iam: { url: iamUrl }, cookieSecret: randomBytes(32).toString('base64url') })
  return startBuilt({ name: 'gateway', output: GATEWAY_OUTPUT, configEnv: 'GATEWAY_CONFIG', config })
}

/** bench/baseline-server.mjs: `health` (plain h3) or `select1` (h3 + SELECT 1 on `database`). */
export function startBaseline(mode, database) {
  return startNodeServer({
    name: `baseline ${mode}`,
    entry: join(ROOT, 'bench', 'baseline-server.mjs'),
    args: ['--mode', mode, ...(database ? ['--database', database] : [])],
    env: childEnv({ NODE_ENV: 'production' }),
    keepLogs: false,
    startTimeoutMs: START_TIMEOUT_MS,
  })
}

/** bench/oidc-library.mjs: oidc-provider alone on node:http, its state and clients in one table of `database` (PostgreSQL). */
export async function startOidcLibrary(database) {
  const server = await startNodeServer({
    name: 'oidc-provider alone',
    entry: join(ROOT, 'bench', 'oidc-library.mjs'),
    args: ['--database', database],
    env: childEnv({ NODE_ENV: 'production' }),
    keepLogs: false,
    startTimeoutMs: START_TIMEOUT_MS,
  })
  const fixtures = await (await fetch(`${server.url}/bench-fixtures`)).json()
  const client = { id: fixtures.client.id, secret: fixtures.client.secret, authorization: `Basic ${Buffer.from(`${fixtures.client.id}:${fixtures.client.secret}`).toString('base64')}` }
  return { ...server, client, refreshToken: fixtures.refreshToken }
}

/**
 * bench/client-document-server.mjs on a certificate for 127.0.0.1 made here (openssl, one day): its
 * https origin, the certificate's path (for the IAM's NODE_EXTRA_CA_CERTS) and `fetches()`, the
 * documents it served so far.
 */
export async function startDocumentServer(redirectUri) {
  const dir = mkdtempSync(join(tmpdir(), 'cimd-bench-'))
  const key = join(dir, 'key.pem')
  const cert = join(dir, 'cert.pem')
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' })
  const server = await startNodeServer({
    name: 'metadata documents',
    entry: join(ROOT, 'bench', 'client-document-server.mjs'),
    args: ['--key', key, '--cert', cert, '--redirect-uri', redirectUri],
    env: childEnv({ NODE_ENV: 'production' }),
    keepLogs: false,
    startTimeoutMs: START_TIMEOUT_MS,
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  })
  const origin = `https://127.0.0.1:${server.port}`
  const ca = readFileSync(cert)
  const fetches = () =>
    new Promise((resolve, reject) => {
      httpsGet(`${origin}/fetches`, { ca }, (res) => {
        let text = ''
        res.on('data', (chunk) => (text += chunk))
        res.on('end', () => resolve(JSON.parse(text).fetches))
      }).on('error', reject)
    })
  return { ...server, origin, cert, fetches }
}

/** Resident set size of `pid` in MB (Linux /proc). */
export function rssMb(pid) {
  const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return match ? Number(match[1]) / 1024 : Number.NaN
}

/**
 * The built IAM's admin CLI (`npm run iam -- <args>` runs the same file) against `databaseUrl` with
 * the bench config: its wall time, peak resident set (VmRSS sampled every 100 ms) and output.
 * `dataDir`: a running IAM's, so both read the same secrets (a client secret the CLI seals, the IAM opens).
 */
export async function runIamCli(args, { databaseUrl, dataDir }) {
  const dir = mkdtempSync(join(tmpdir(), 'iam-cli-bench-'))
  const configPath = join(dir, 'config.json')
  writeFileSync(configPath, JSON.stringify(benchIamConfig({ dataDir: dataDir ?? dir, databaseUrl })))
  try {
    const started = performance.now()
    const child = spawn(process.execPath, [join(IAM_OUTPUT, 'server', 'cli.mjs'), ...args], { cwd: dir, env: childEnv({ NODE_ENV: 'development', IAM_CONFIG: configPath }), stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk) => (stdout += chunk))
    child.stderr.on('data', (chunk) => (stderr += chunk))
    let peakRssMb = 0
    const sample = setInterval(() => {
      try {
        peakRssMb = Math.max(peakRssMb, rssMb(child.pid))
      } catch {
        // exited between two samples
      }
    }, 100)
    const status = await new Promise((resolve) => child.once('exit', (code) => resolve(code)))
    clearInterval(sample)
    return { status, wallMs: performance.now() - started, peakRssMb, stdout, stderr }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
