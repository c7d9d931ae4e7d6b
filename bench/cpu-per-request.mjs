/**
 * IAM CPU per request (user + system, from /proc/<pid>/stat) for one GET path of a built IAM, in
 * rounds: on a shared, loaded machine a process's own CPU time per request moves far less than its
 * answers per second, so two builds are compared by running this against each in turn, alternated
 * (IAM_OUTPUT_DIR selects the build, as for `npm run bench`). PGlite in memory, the bench's IAM
 * config (bench/lib/servers.mjs), the request log on.
 *
 *   node bench/cpu-per-request.mjs [--path /health] [--signed-in] [--after-provider] [--rate 500]
 *     [--duration 5] [--rounds 3] [--warmup 2] [--connections 50] [--json <file>]
 *
 * --rate: requests per second offered (autocannon's overallRate; 0 for as fast as it answers). A
 * fixed rate keeps the builds compared on the same load: at full speed a slower build answers
 * fewer requests per event-loop turn, and what the process spends per turn (its wake-ups, the
 * socket reads) is shared among fewer requests, so its CPU per request would grow with the load of
 * the machine rather than with its own code.
 *
 * --signed-in: the requests carry a session as the gateway sends it (Bearer access token, session
 * and canary cookies), cycling through ten sessions of one user, as the bench's full-auth row does;
 * the path defaults to /secret/data (full authentication).
 *
 * --after-provider: before the rounds, the OpenID Provider serves one client registration and one
 * client-credentials grant, so what its first request leaves switched on for the process (its
 * AsyncLocalStorage, docs/performance.md) is part of what is measured.
 */
import { writeFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { loginUser, newDevice, signupUser } from '../tests/helpers/accounts.ts'
import { cannon } from './lib/load.mjs'
import { registerClient, tokenRequest } from './lib/oidc.mjs'
import { cpuMicros } from './lib/process-cpu.mjs'
import { IAM_OUTPUT, startIam } from './lib/servers.mjs'

const { values } = parseArgs({
  options: {
    path: { type: 'string' },
    'signed-in': { type: 'boolean', default: false },
    'after-provider': { type: 'boolean', default: false },
    duration: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' },
    rate: { type: 'string', default: '500' },
    warmup: { type: 'string', default: '2' },
    connections: { type: 'string', default: '50' },
    json: { type: 'string' },
  },
  strict: true,
})

const signedIn = values['signed-in']
const path = values.path ?? (signedIn ? '/secret/data' : '/health')

/** Ten sessions of one user on one device (signed up, then nine logins), for --signed-in. */
async function tenSessions(iam) {
  const device = await newDevice(iam)
  const user = await signupUser(iam, { client: device })
  const more = []
  for (let i = 0; i < 9; i++) more.push(await loginUser(iam, user.email, user.password, device))
  return [user, ...more]
}

/** An autocannon request cycling through `sessions`' Bearer token and cookies. */
function asSessions(sessions) {
  let next = 0
  return {
    requests: [{
      setupRequest: (req) => {
        const s = sessions[next++ % sessions.length]
        return { ...req, headers: { ...req.headers, 'user-agent': s.ua, authorization: `Bearer ${s.accessToken}`, cookie: `canary_id=${s.canary}; session=${s.refreshToken}` } }
      },
    }],
  }
}


const iam = await startIam({ databaseUrl: 'memory://' })
const pid = iam.child.pid
const connections = Number(values.connections)
const rounds = []
try {
  if (values['after-provider']) {
    const machine = await registerClient(iam.url, { client_name: 'cpu probe', grant_types: ['client_credentials'], response_types: [], redirect_uris: [] })
    await tokenRequest(iam.url, machine, { grant_type: 'client_credentials' })
  }
  const rate = Number(values.rate)
  const sessions = signedIn ? asSessions(await tenSessions(iam)) : {}
  const request = { url: `${iam.url}${path}`, connections, ...sessions, ...(rate > 0 ? { overallRate: rate } : {}) }
  if (Number(values.warmup) > 0) await cannon({ ...request, duration: Number(values.warmup) })
  for (let i = 0; i < Number(values.rounds); i++) {
    const before = cpuMicros(pid)
    const result = await cannon({ ...request, duration: Number(values.duration) })
    // requests still in flight at the end are served after it: wait for the process to go quiet
    await new Promise((resolve) => setTimeout(resolve, 300))
    const used = cpuMicros(pid) - before
    const served = Math.max(result.requests.sent, result.requests.total)
    if (result.non2xx > 0 || result.errors > 0) throw new Error(`round ${i + 1}: ${result.non2xx} non-2xx, ${result.errors} errors`)
    rounds.push({ usPerRequest: used / served, rps: result.requests.average, served })
  }
} finally {
  await iam.stop()
}

const sorted = rounds.map((r) => r.usPerRequest).sort((a, b) => a - b)
const median = sorted[Math.floor(sorted.length / 2)]
const summary = { output: IAM_OUTPUT, path, signedIn, afterProvider: values['after-provider'], rate: Number(values.rate), rounds, medianUsPerRequest: median }
console.log(`${IAM_OUTPUT} ${path}${signedIn ? ' (signed in)' : ''}${values['after-provider'] ? ' (after a provider request)' : ''}: ${rounds.map((r) => `${r.usPerRequest.toFixed(0)} us (${r.rps.toFixed(0)}/s)`).join(', ')}; median ${median.toFixed(0)} us`)
if (values.json) writeFileSync(values.json, `${JSON.stringify(summary, null, 2)}\n`)
