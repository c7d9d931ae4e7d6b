/**
 * API token verification benchmark.
 *
 * HTTP (autocannon against the built IAM, same process and run for all three):
 *   - baseline: GET /health (the cheapest route through the same middleware chain)
 *   - counted:  GET /api/public/verify?privilege=full with a valid x-api-key (one UPDATE ... RETURNING)
 * Library (in-process, same database kind, same concurrency):
 *   - counted:   verifyApiKey(raw, false, ...)  (the atomic UPDATE ... RETURNING)
 *   - uncounted: verifyApiKey(raw, true, ...)   (skipCountUpdates: one SELECT)
 * skipCountUpdates is not reachable over HTTP (the public route always counts), so its cost is
 * measured where it exists: in the library, next to the counted call under identical conditions.
 *
 * Databases: PGlite (in memory) always; PostgreSQL when DATABASE_URL is set (a fresh database,
 * dropped afterwards). Shared storage: memory. Usage:
 *   node bench/api-token-verify.mjs [--duration 10] [--connections 20] [--json out.json]
 */
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, dirname } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { performance } from 'node:perf_hooks'
import autocannon from 'autocannon'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const args = process.argv.slice(2)
const opt = (name, fallback) => {
  const i = args.indexOf(`--${name}`)
  return i >= 0 ? args[i + 1] : fallback
}
const DURATION_S = Number(opt('duration', '10'))
const CONNECTIONS = Number(opt('connections', '20'))
const JSON_OUT = opt('json', undefined)
const ENTRY = join(process.env.IAM_OUTPUT_DIR || join(ROOT, 'iam', '.output'), 'server', 'index.mjs')
const WIDE = { points: 1e9, duration: 60, blockDuration: 1 }

async function createPgDatabase(baseUrl) {
  const { default: pg } = await import('pg')
  const name = `iam_bench_${randomBytes(5).toString('hex')}`
  const admin = new pg.Client({ connectionString: baseUrl })
  await admin.connect()
  await admin.query(`create database ${name}`)
  await admin.end()
  const url = new URL(baseUrl)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: baseUrl })
      await c.connect()
      await c.query(`drop database if exists ${name} with (force)`)
      await c.end()
    },
  }
}

/** Starts the built IAM on a free port with bench settings; resolves with its URL and a stop(). */
async function startIam(databaseUrl) {
  const dataDir = mkdtempSync(join(tmpdir(), 'iam-bench-'))
  const config = {
    service: { dataDir },
    database: { url: databaseUrl },
    storage: { driver: 'memory', prefix: 'bench' },
    password: { breachCheck: { enabled: false }, argon2: { memoryCost: 8192, timeCost: 1, parallelism: 1 } },
    emailChecks: { mx: false },
    // the per-request log line is written at info: silence it so stdout is not what we measure
    logLevel: 'warn',
    rate_limiters: {
      apiTokensLimiters: {
        consumptionRateLimiter: WIDE,
        generalUnionLimiter: { burst: WIDE, slow: WIDE },
        operationRateLimits: Object.fromEntries(
          ['newTokenCreationLimiter', 'revokeTokensLimiter', 'getMetadataTokenLimiter', 'rotationRateLimiter', 'ipRestrictionUpdate', 'privilegeUpdate'].map((k) => [k, WIDE]),
        ),
      },
    },
  }
  writeFileSync(join(dataDir, 'iam.json'), JSON.stringify(config))
  const { DATABASE_URL: _d, REDIS_URL: _r, ...env } = process.env
  const child = spawn(process.execPath, [ENTRY], {
    cwd: dataDir,
    env: { ...env, NODE_ENV: 'development', PORT: '0', HOST: '127.0.0.1', IAM_CONFIG: join(dataDir, 'iam.json') },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const port = await new Promise((resolve, reject) => {
    let out = ''
    const timer = setTimeout(() => reject(new Error(`IAM did not start:\n${out}`)), 120_000)
    const onData = (chunk) => {
      out += chunk
      const m = /Listening on https?:\/\/[^\s]*:(\d+)/.exec(out)
      if (m) {
        clearTimeout(timer)
        resolve(Number(m[1]))
      }
    }
    child.stdout.on('data', onData)
    child.stderr.on('data', onData)
    child.once('exit', (code) => reject(new Error(`IAM exited with ${code}:\n${out}`)))
  })
  const url = `http://127.0.0.1:${port}`
  await fetch(`${url}/health`)
  return {
    url,
    stop: async () => {
      const exited = new Promise((r) => child.once('exit', r))
      child.kill('SIGTERM')
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))])
      if (child.exitCode === null) child.kill('SIGKILL')
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

/** A device, a user and a token, through the IAM's own routes. */
async function tokenOverHttp(url) {
  const ip = { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36' }
  const check = await fetch(`${url}/check`, { headers: ip })
  const canary = /canary_id=([^;]+)/.exec(check.headers.getSetCookie().join('\n'))?.[1]
  const password = 'correct horse battery staple 42'
  const signup = await fetch(`${url}/signup`, {
    method: 'POST',
    headers: { ...ip, 'content-type': 'application/json', cookie: `canary_id=${canary}` },
    body: JSON.stringify({ email: `bench.${randomBytes(4).toString('hex')}@example.com`, password, confirmedPassword: password, name: 'Bench', termsConsent: 'on' }),
  })
  const { accessToken } = await signup.json()
  const session = /session=([^;]+)/.exec(signup.headers.getSetCookie().join('\n'))?.[1]
  const created = await fetch(`${url}/api/manage/new-token`, {
    method: 'POST',
    headers: { ...ip, 'content-type': 'application/json', authorization: `Bearer ${accessToken}`, cookie: `canary_id=${canary}; session=${session}` },
    body: JSON.stringify({ privilege: 'full', name: 'bench' }),
  })
  const body = await created.json()
  if (created.status !== 201) throw new Error(`token creation failed: ${created.status} ${JSON.stringify(body)}`)
  return body.data.rawApiKey
}

function cannon(url, headers) {
  return new Promise((resolve, reject) => {
    autocannon({ url, connections: CONNECTIONS, duration: DURATION_S, headers }, (error, result) => {
      if (error) reject(error)
      else resolve({ rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, non2xx: result.non2xx, errors: result.errors })
    })
  })
}

/** Bundles the library form once (esbuild), so this plain .mjs can import the TypeScript sources. */
async function loadLibrary() {
  const { build } = await import('esbuild')
  // inside the project, so the bundle's bare imports (kysely, pg, ...) resolve from node_modules
  mkdirSync(join(ROOT, 'node_modules', '.cache'), { recursive: true })
  const outdir = mkdtempSync(join(ROOT, 'node_modules', '.cache', 'iam-bench-lib-'))
  await build({
    entryPoints: { 'api-tokens': join(ROOT, 'iam/api-tokens.ts'), database: join(ROOT, 'iam/db/database.ts'), log: join(ROOT, 'iam/lib/log.ts') },
    bundle: true, platform: 'node', format: 'esm', packages: 'external', outdir, splitting: true, logLevel: 'error',
  })
  const load = (name) => import(pathToFileURL(join(outdir, `${name}.js`)).href)
  const [lib, database, log] = await Promise.all([load('api-tokens'), load('database'), load('log')])
  return { ...lib, ...database, ...log, cleanup: () => rmSync(outdir, { recursive: true, force: true }) }
}

/** CONNECTIONS concurrent loops calling fn for DURATION_S; throughput and latency percentiles (ms). */
async function loop(fn) {
  const latencies = []
  const end = performance.now() + DURATION_S * 1000
  let failures = 0
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (performance.now() < end) {
        const t0 = performance.now()
        const result = await fn()
        latencies.push(performance.now() - t0)
        if (!result.ok) failures += 1
      }
    }),
  )
  latencies.sort((a, b) => a - b)
  const at = (q) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] * 100) / 100
  return { rps: Math.round(latencies.length / DURATION_S), p50: at(0.5), p99: at(0.99), failures, calls: latencies.length }
}

async function libraryBench(L, databaseUrl) {
  const db = await L.createDatabase({ database: { url: databaseUrl }, service: { dataDir: '.data' } })
  await L.migrateToLatest(db)
  const { id } = await db.insertInto('users').values({ email: `lib.${randomBytes(4).toString('hex')}@example.com`, name: 'Bench', roles: JSON.stringify(['user']) }).returning('id').executeTakeFirstOrThrow()
  const lib = L.createApiTokenLibrary({ db, config: { apiTokens: { limitTokensPerUser: 20 } }, log: L.createLogger('silent') })
  const created = await lib.createApiKey(id, 'full', 'bench')
  const raw = created.data.rawApiKey
  const counted = await loop(() => lib.verifyApiKey(raw, false, 'full', false, false, '127.0.0.1'))
  const uncounted = await loop(() => lib.verifyApiKey(raw, true, 'full', false, false, '127.0.0.1'))
  const usage = await lib.getUserApiKeysMetaData(raw, 'full')
  await db.destroy()
  return { counted, uncounted, usageCountAfter: usage.ok ? usage.data.tokenMeta.usageCount : null }
}

async function httpBench(databaseUrl) {
  const iam = await startIam(databaseUrl)
  try {
    const raw = await tokenOverHttp(iam.url)
    const health = await cannon(`${iam.url}/health`, {})
    const verify = await cannon(`${iam.url}/api/public/verify?privilege=full`, { 'x-api-key': raw })
    return { health, verify }
  } finally {
    await iam.stop()
  }
}

const ratio = (a, b) => Math.round((a / b) * 100) / 100

async function main() {
  const L = await loadLibrary()
  const targets = [{ name: 'pglite', url: () => ({ url: 'memory://', drop: async () => {} }) }]
  if (process.env.DATABASE_URL) targets.push({ name: 'postgres', url: () => createPgDatabase(process.env.DATABASE_URL) })
  const report = { date: new Date().toISOString(), durationS: DURATION_S, connections: CONNECTIONS, node: process.version, results: {} }
  try {
    for (const target of targets) {
      const httpDb = await target.url()
      const http = await httpBench(httpDb.url).finally(() => httpDb.drop())
      const libDb = await target.url()
      const library = await libraryBench(L, libDb.url).finally(() => libDb.drop())
      report.results[target.name] = {
        http,
        library,
        ratios: {
          httpVerifyVsHealthRps: ratio(http.verify.rps, http.health.rps),
          httpVerifyVsHealthP50: ratio(http.verify.p50, http.health.p50),
          libraryCountedVsUncountedRps: ratio(library.counted.rps, library.uncounted.rps),
        },
      }
      console.log(JSON.stringify({ [target.name]: report.results[target.name] }, null, 2))
    }
  } finally {
    L.cleanup()
  }
  if (JSON_OUT) writeFileSync(JSON_OUT, JSON.stringify(report, null, 2))
  return report
}

export { main, startIam, tokenOverHttp }
if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error) => {
    console.error(error)
    process.exit(1)
  })
}
