/**
 * Gateway CPU per forwarded request (user + system, from /proc/<pid>/stat), for two gateway builds
 * side by side in front of one IAM, in alternated rounds at a fixed offered rate: on a shared 2-core
 * machine a process's CPU per request moves far less than its answers per second (see
 * bench/cpu-per-request.mjs, the same method for the IAM). The IAM's CPU per request is printed
 * beside each round.
 *
 *   DATABASE_URL=postgres://... REDIS_URL=redis://... node bench/gateway-cpu.mjs \
 *     --builds /tmp/before/.output,.output [--request introspect|jwks|session] [--rate 2000] \
 *     [--duration 5] [--rounds 6] [--warmup 2] [--connections 50]
 *
 * --builds: the gateways' `.output` directories, comma-separated (`npm run build` writes `.output`;
 * copy it away before building the other side). --request: `introspect` posts a client-credentials
 * access token to /oidc/token/introspection as its machine client (the bench's
 * `oidc-introspect-gateway` row), `jwks` gets /oidc/jwks, `session` a page script's
 * `GET /api/auth/session` of a person signed in through that gateway (the `gateway-session` row).
 * On its own PostgreSQL database, dropped at the end.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { CHROME_UA, newDevice, signupUser } from '../tests/helpers/accounts.ts'
import { gatewaySignIn } from './lib/gateway-sign-in.mjs'
import { cannon } from './lib/load.mjs'
import { tokenRequest } from './lib/oidc.mjs'
import { cpuMicros } from './lib/process-cpu.mjs'
import { createPgDatabase, runIamCli, startIam } from './lib/servers.mjs'

const { values } = parseArgs({
  options: {
    builds: { type: 'string' },
    request: { type: 'string', default: 'introspect' },
    rate: { type: 'string', default: '2000' },
    duration: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '6' },
    warmup: { type: 'string', default: '2' },
    connections: { type: 'string', default: '50' },
  },
  strict: true,
})
if (!values.builds || !process.env.DATABASE_URL) {
  console.error('usage: DATABASE_URL=postgres://... [REDIS_URL=...] node bench/gateway-cpu.mjs --builds <dir>,<dir> [--request introspect|jwks|session]')
  process.exit(2)
}
if (!['introspect', 'jwks', 'session'].includes(values.request)) throw new Error(`--request: introspect, jwks or session, not ${values.request}`)

const builds = values.builds.split(',').map((dir) => resolve(dir))
const db = await createPgDatabase(process.env.DATABASE_URL)
const dataDir = mkdtempSync(join(tmpdir(), 'gateway-cpu-'))
const iam = await startIam({ databaseUrl: db.url, redisUrl: process.env.REDIS_URL, dataDir })
const gateways = []
let request = { method: 'GET', path: '/oidc/jwks' }
let person
try {
  if (values.request === 'introspect') {
    const created = await runIamCli(['clients:create', '--name', 'gateway cpu probe', '--grant', 'client_credentials', '--json'], { databaseUrl: db.url, dataDir })
    if (created.status !== 0) throw new Error(`clients:create failed: ${created.stderr}`)
    const { client, clientSecret } = JSON.parse(created.stdout.trim().split('\n').at(-1))
    const authorization = `Basic ${Buffer.from(`${encodeURIComponent(client.clientId)}:${encodeURIComponent(clientSecret)}`).toString('base64')}`
    const { access_token: token } = await tokenRequest(iam.url, { authorization }, { grant_type: 'client_credentials' })
    request = { method: 'POST', path: '/oidc/token/introspection', body: `token=${token}`, headers: { 'content-type': 'application/x-www-form-urlencoded', authorization } }
  }
  if (values.request === 'session') {
    person = await signupUser(iam, { client: await newDevice(iam) })
    request = { method: 'GET', path: '/api/auth/session' }
  }
  // each build's servers.mjs reads GATEWAY_OUTPUT_DIR when imported: one import per build
  for (const [i, output] of builds.entries()) {
    process.env.GATEWAY_OUTPUT_DIR = output
    const { startGateway } = await import(`./lib/servers.mjs?build=${i}`)
    const server = await startGateway(iam.url)
    // each gateway its own sign-in: its cookies are sealed with its own secret
    const headers = person ? { cookie: await gatewaySignIn(server.url, person.email, person.password), 'user-agent': CHROME_UA } : request.headers
    gateways.push({ output, server, headers, rounds: [] })
  }
  const load = (gateway, duration) =>
    cannon({ url: `${gateway.server.url}${request.path}`, method: request.method, body: request.body, headers: gateway.headers ?? {}, connections: Number(values.connections), duration, overallRate: Number(values.rate) })
  for (const gateway of gateways) await load(gateway, Number(values.warmup))
  for (let round = 0; round < Number(values.rounds); round++) {
    for (const gateway of round % 2 ? [...gateways].reverse() : gateways) {
      const before = { gateway: cpuMicros(gateway.server.child.pid), iam: cpuMicros(iam.child.pid) }
      const result = await load(gateway, Number(values.duration))
      // requests still in flight at the end are served after it
      await new Promise((done) => setTimeout(done, 300))
      if (result.non2xx > 0 || result.errors > 0) throw new Error(`${gateway.output}: ${result.non2xx} non-2xx, ${result.errors} errors`)
      const served = Math.max(result.requests.sent, result.requests.total)
      gateway.rounds.push({ gatewayUs: (cpuMicros(gateway.server.child.pid) - before.gateway) / served, iamUs: (cpuMicros(iam.child.pid) - before.iam) / served })
    }
  }
} finally {
  for (const gateway of gateways) await gateway.server.stop()
  await iam.stop()
  await db.drop()
  rmSync(dataDir, { recursive: true, force: true })
}

const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]
for (const gateway of gateways) {
  const shown = gateway.rounds.map((r) => `${r.gatewayUs.toFixed(0)} us (IAM ${r.iamUs.toFixed(0)})`).join(', ')
  console.log(`${gateway.output} ${request.method} ${request.path} at ${values.rate}/s: ${shown}; median ${median(gateway.rounds.map((r) => r.gatewayUs)).toFixed(0)} us`)
}
