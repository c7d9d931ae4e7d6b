#!/usr/bin/env node
/**
 * Login enumeration timing: does POST /login take as long for an unknown address as for a known
 * address with a wrong password? Starts the built IAM (IAM_OUTPUT_DIR or iam/.output) on PGlite with
 * the benchmark's config (bench/lib/servers.mjs: production Argon2 parameters, limits out of
 * reach), signs one user up, then runs autocannon against both cases in turn and prints latency
 * figures and the unknown/known ratio (1.0 = indistinguishable).
 *
 *   node bench/login-enumeration.mjs [--duration 10] [--connections 4]
 */
import { parseArgs } from 'node:util'
import autocannon from 'autocannon'
import { buildServers, startIam } from './lib/servers.mjs'

const { values } = parseArgs({ options: { duration: { type: 'string', default: '10' }, connections: { type: 'string', default: '4' } } })
buildServers()
// the bench config: production Argon2id, login limits and the per-account delay out of reach
const iam = await startIam({ databaseUrl: 'memory://' })
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
    autocannon({ url: `${url}/login`, method: 'POST', headers, body: JSON.stringify(body), duration: Number(values.duration), connections: Number(values.connections), title })
  // warm-up so the dummy hash and the JIT are in place for both paths
  await run('warm-up', { email, password: 'wrong wrong wrong' })
  await run('warm-up', { email: `nobody.${Date.now()}@example.com`, password: 'wrong wrong wrong' })
  // alternate the two cases so drift in machine load hits both alike
  const rounds = { known: [], unknown: [] }
  for (let i = 0; i < 2; i++) {
    rounds.known.push(await run('known address, wrong password', { email, password: 'wrong wrong wrong' }))
    rounds.unknown.push(await run('unknown address', { email: `nobody.${Date.now()}@example.com`, password: 'wrong wrong wrong' }))
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
  const known = merge(rounds.known)
  const unknown = merge(rounds.unknown)
  const row = (r) => ({
    case: r.title, requests: r.requests.total, non2xx: r.non2xx,
    'mean ms': Number(r.latency.mean.toFixed(2)), 'p50 ms': r.latency.p50, 'p99 ms': r.latency.p99,
  })
  console.table([row(known), row(unknown)])
  const statuses = new Set([...Object.keys(known.statusCodeStats ?? {}), ...Object.keys(unknown.statusCodeStats ?? {})])
  console.log(`statuses seen: ${[...statuses].join(', ')} (both cases must be 401 only)`)
  console.log(`mean latency ratio unknown/known: ${(unknown.latency.mean / known.latency.mean).toFixed(3)}`)
  console.log(`p50 latency ratio unknown/known: ${(unknown.latency.p50 / known.latency.p50).toFixed(3)}`)
} finally {
  await iam.stop()
}
