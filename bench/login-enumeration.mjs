#!/usr/bin/env node
/**
 * Address enumeration timing: does a route that takes an email address answer as fast for an
 * unknown address as for a known one? Starts the built IAM (IAM_OUTPUT_DIR or iam/.output) on
 * PGlite with the benchmark's config (bench/lib/servers.mjs: production Argon2 parameters, limits
 * out of reach), signs one user up, then runs autocannon against both cases in turn, alternated,
 * and prints latency figures, the unknown/known ratio (1.0 = indistinguishable), the median
 * difference and the noise band: the largest median difference between two rounds of the SAME
 * case. A median difference inside the band is not told apart from the machine's own drift at
 * this sample size.
 *
 * `--route` picks the route (the body each case sends):
 *   login            POST /login, a wrong password (both 401)
 *   email-sign-in    POST /auth/email-sign-in, method code (both 200; email sign-in turned on)
 *   forgot-password  POST /auth/forgot-password (both 200)
 *   passkey-signup   POST /auth/passkey-signup/start (both 200: a code to an unknown address,
 *                    "you already have an account" to a known one)
 * POST /signup is not among them: it answers a known address 409 `email_taken` by design
 * (docs/accounts.md), so its timing tells nothing the status does not.
 * The mail limiters are widened with the others, so every request of either case sends its mail
 * (after the answer, as in production) rather than being held back by the per-address cap.
 *
 *   node bench/login-enumeration.mjs [--route login] [--duration 10] [--connections 4] [--rounds 2]
 */
import { parseArgs } from 'node:util'
import autocannon from 'autocannon'
import { buildServers, startIam } from './lib/servers.mjs'

const WRONG = 'wrong wrong wrong'
/** each route: its path, the body for an address, and the one status both cases must get */
const ROUTES = {
  login: { path: '/login', body: (email) => ({ email, password: WRONG }), status: 401 },
  'email-sign-in': { path: '/auth/email-sign-in', body: (email) => ({ email, method: 'code' }), status: 200 },
  'forgot-password': { path: '/auth/forgot-password', body: (email) => ({ email }), status: 200 },
  'passkey-signup': { path: '/auth/passkey-signup/start', body: (email) => ({ email, name: 'Bench', termsConsent: 'on' }), status: 200 },
}

const { values } = parseArgs({
  options: {
    route: { type: 'string', default: 'login' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '4' },
    rounds: { type: 'string', default: '2' },
  },
})
const route = ROUTES[values.route]
if (!route) throw new Error(`--route: one of ${Object.keys(ROUTES).join(', ')}`)
// the IAM alone answers these routes: the gateway is not built
buildServers({ gateway: false })
const WIDE = { points: 1_000_000_000, duration: 60, blockDuration: 1 }
// the bench config: production Argon2id, every limit out of reach (the mail routes' and the
// per-address mail cap too), email sign-in on for its route
const iam = await startIam({
  databaseUrl: 'memory://',
  overrides: {
    signIn: { emailLink: true, emailCode: true },
    rate_limiters: { forgotPassword: WIDE, emailSignIn: WIDE, mailbox: WIDE, codes: WIDE },
  },
})
const url = iam.url

try {
  const check = await fetch(`${url}/check`, { headers: { 'user-agent': 'Mozilla/5.0 Chrome/124.0 bench' } })
  const canary = /canary_id=([0-9a-f]{64})/.exec(check.headers.get('set-cookie') ?? '')?.[1]
  const headers = { 'content-type': 'application/json', cookie: `canary_id=${canary}`, 'user-agent': 'Mozilla/5.0 Chrome/124.0 bench' }
  const email = `bench.${Date.now()}@example.com`
  const password = 'a strong bench passphrase 1'
  const signup = await fetch(`${url}/signup`, {
    method: 'POST', headers, body: JSON.stringify({ email, password, confirmedPassword: password, name: 'Bench', termsConsent: 'on' }),
  })
  if (signup.status !== 201) throw new Error(`signup answered ${signup.status}`)

  const run = (title, body) =>
    autocannon({ url: `${url}${route.path}`, method: 'POST', headers, body: JSON.stringify(body), duration: Number(values.duration), connections: Number(values.connections), title })
  const known = (title) => run(title, route.body(email))
  // one unknown address per run: nothing any request does makes it known
  const unknown = (title) => run(title, route.body(`nobody.${Date.now()}@example.com`))
  // warm-up so the dummy hash and the JIT are in place for both paths
  await known('warm-up')
  await unknown('warm-up')
  // alternate the two cases so drift in machine load hits both alike
  const rounds = { known: [], unknown: [] }
  for (let i = 0; i < Number(values.rounds); i++) {
    rounds.known.push(await known(values.route === 'login' ? 'known address, wrong password' : 'known address'))
    rounds.unknown.push(await unknown('unknown address'))
  }
  const merge = (list) => ({
    title: list[0].title,
    requests: { total: list.reduce((n, r) => n + r.requests.total, 0) },
    non2xx: list.reduce((n, r) => n + r.non2xx, 0),
    latency: {
      mean: list.reduce((n, r) => n + r.latency.mean * r.requests.total, 0) / list.reduce((n, r) => n + r.requests.total, 0),
      p50: list.reduce((n, r) => n + r.latency.p50, 0) / list.length,
      p99: Math.max(...list.map((r) => r.latency.p99)),
    },
    statusCodeStats: Object.assign({}, ...list.map((r) => r.statusCodeStats ?? {})),
  })
  const knownAll = merge(rounds.known)
  const unknownAll = merge(rounds.unknown)
  const row = (r) => ({
    case: r.title, requests: r.requests.total, non2xx: r.non2xx,
    'mean ms': Number(r.latency.mean.toFixed(2)), 'p50 ms': Number(r.latency.p50.toFixed(1)), 'p99 ms': r.latency.p99,
  })
  console.log(`${route.path} (--route ${values.route}), ${values.rounds} rounds of ${values.duration} s, ${values.connections} connections`)
  console.table([row(knownAll), row(unknownAll)])
  const statuses = new Set([...Object.keys(knownAll.statusCodeStats ?? {}), ...Object.keys(unknownAll.statusCodeStats ?? {})])
  console.log(`statuses seen: ${[...statuses].join(', ')} (both cases must be ${route.status} only)`)
  console.log(`mean latency ratio unknown/known: ${(unknownAll.latency.mean / knownAll.latency.mean).toFixed(3)}`)
  console.log(`p50 latency ratio unknown/known: ${(unknownAll.latency.p50 / knownAll.latency.p50).toFixed(3)}`)
  // the median difference against the rounds' own spread: the same case measured twice differs by this much
  const p50s = (list) => list.map((r) => r.latency.p50)
  const spread = (list) => Math.max(...p50s(list)) - Math.min(...p50s(list))
  const band = Math.max(spread(rounds.known), spread(rounds.unknown))
  const difference = unknownAll.latency.p50 - knownAll.latency.p50
  console.log(`p50 per round, known: ${p50s(rounds.known).join(', ')} ms; unknown: ${p50s(rounds.unknown).join(', ')} ms`)
  console.log(`median difference unknown - known: ${difference.toFixed(2)} ms; noise band (same case, round to round): ${band.toFixed(2)} ms; ${Math.abs(difference) <= band ? 'inside the band' : 'OUTSIDE the band'}`)
  // a second reading of the same rounds: a band widened by one noisy round can hide a difference
  // that every round shows
  const apart = Math.min(...p50s(rounds.known)) > Math.max(...p50s(rounds.unknown)) || Math.min(...p50s(rounds.unknown)) > Math.max(...p50s(rounds.known))
  console.log(`every round of one case slower than every round of the other: ${apart ? 'YES (told apart)' : 'no'}`)
} finally {
  await iam.stop()
}
