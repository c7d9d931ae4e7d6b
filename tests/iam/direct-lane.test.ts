/**
 * The IAM's direct lane (iam/plugins/02.direct-lane.ts) answers `GET /health` and the OpenID
 * Provider's requests without Nitro's per-request hooks, and otherwise exactly as Nitro's path
 * does. Two IAMs on one configuration but `service.directLane`: each request goes to both, and
 * the status, every header but the per-response `date`, the body, the request's log line and its
 * metrics label must be the same. The test build counts the requests that ran Nitro's 'request'
 * hook (iam/test-build/lib/request-counter.ts): the lane's skip it, everything else does not.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startIam, type IamServer } from '../helpers/iam-server'
import { waitForLogs } from '../helpers/logs'
import { LOOPBACK_SCRAPER, moved, scrapeMetrics } from '../helpers/prometheus'

const START_TIMEOUT_MS = 180_000
// the OpenID Provider's issuer: a gateway that is not running (only what the IAM prints names it)
const CONFIG = { oidc: { issuer: 'http://127.0.0.1:9/oidc' }, service: { metrics: { allow: ['127.0.0.1', '::1'] } } }

let lane: IamServer
let nitro: IamServer
beforeAll(async () => {
  ;[lane, nitro] = await Promise.all([
    startIam({ config: CONFIG, env: { IAM_TEST_ROUTES: '1' } }),
    startIam({ config: { ...CONFIG, service: { ...CONFIG.service, directLane: false } }, env: { IAM_TEST_ROUTES: '1' } }),
  ])
}, START_TIMEOUT_MS)
afterAll(() => Promise.all([lane?.stop(), nitro?.stop()]))

interface Ask {
  name: string
  method: string
  target: string
  headers?: Record<string, string>
  body?: string
}

const FORM = { 'content-type': 'application/x-www-form-urlencoded' }
const ASKS: Ask[] = [
  { name: 'health', method: 'GET', target: '/health' },
  { name: 'health with a query', method: 'GET', target: '/health?probe=1' },
  { name: 'health, HEAD', method: 'HEAD', target: '/health' },
  { name: 'health, POST', method: 'POST', target: '/health' },
  { name: 'discovery', method: 'GET', target: '/oidc/.well-known/openid-configuration' },
  { name: 'keys', method: 'GET', target: '/oidc/jwks' },
  { name: 'a grant without a client', method: 'POST', target: '/oidc/token', headers: FORM, body: 'grant_type=client_credentials' },
  { name: 'a grant from an unknown client', method: 'POST', target: '/oidc/token', headers: { ...FORM, authorization: `Basic ${Buffer.from('nobody:secret').toString('base64')}` }, body: 'grant_type=client_credentials' },
  { name: 'a grant with a JSON body', method: 'POST', target: '/oidc/token', headers: { 'content-type': 'application/json' }, body: '{}' },
  { name: 'an introspection without a client', method: 'POST', target: '/oidc/token/introspection', headers: FORM, body: 'token=abc' },
  { name: 'userinfo without a token', method: 'GET', target: '/oidc/me' },
  { name: 'an unknown provider path', method: 'GET', target: '/oidc/no-such-endpoint' },
  { name: 'an encoded dot segment under the mount', method: 'GET', target: '/oidc/%2e%2e/health' },
  { name: 'a doubled slash under the mount', method: 'GET', target: '/oidc//jwks' },
  { name: 'a grant over the body bound', method: 'POST', target: '/oidc/token', headers: FORM, body: `grant_type=client_credentials&pad=${'x'.repeat(200_000)}` },
]

interface Answer {
  status: number
  headers: Record<string, string>
  body: string
  log: Record<string, unknown>
}

/** One request, named by its request id; its answer and its log line (timing and the id aside). */
async function ask(iam: IamServer, a: Ask, id: string): Promise<Answer> {
  const res = await fetch(`${iam.url}${a.target}`, { method: a.method, headers: { ...a.headers, 'x-request-id': id }, body: a.body })
  const headers: Record<string, string> = {}
  res.headers.forEach((value, name) => {
    if (name !== 'date') headers[name] = value
  })
  const text = await res.text()
  // each IAM made its own signing keys: the key set is compared by its members' names and types
  const body = a.target === '/oidc/jwks' && res.status === 200 ? JSON.stringify((JSON.parse(text) as { keys: Array<Record<string, unknown>> }).keys.map((key) => [key.kty, Object.keys(key)])) : text
  const [line] = await waitForLogs(iam, (l) => l.includes(`"requestId":"${id}"`) && l.includes('"msg":"request"'), 1, `the request line of ${id}`)
  const { time: _time, durationMs: _duration, pid: _pid, hostname: _hostname, ...log } = JSON.parse(line!) as Record<string, unknown>
  return { status: res.status, headers, body, log }
}

const counted = async (iam: IamServer) => (await (await fetch(`${iam.url}/__test/requests`)).json()) as { received: number; nitroPath: number }

describe('the direct lane', () => {
  it('answers /health and the provider\'s requests as Nitro\'s path does: status, headers, body, log line and metrics label', async () => {
    for (const [i, a] of ASKS.entries()) {
      const id = `lane-${i}-${Date.now()}`
      const [onLane, onNitro] = await Promise.all([ask(lane, a, id), ask(nitro, a, id)])
      expect({ name: a.name, ...onLane }).toEqual({ name: a.name, ...onNitro })
    }
    const [laneBefore, nitroBefore] = await Promise.all([scrapeMetrics(lane.url, LOOPBACK_SCRAPER), scrapeMetrics(nitro.url, LOOPBACK_SCRAPER)])
    await Promise.all([ask(lane, ASKS[5]!, `lane-keys-${Date.now()}`), ask(nitro, ASKS[5]!, `nitro-keys-${Date.now()}`)])
    const [laneAfter, nitroAfter] = await Promise.all([scrapeMetrics(lane.url, LOOPBACK_SCRAPER), scrapeMetrics(nitro.url, LOOPBACK_SCRAPER)])
    const labels = { method: 'GET', route: '/oidc/**:path', status: '200' }
    expect([moved(laneBefore, laneAfter, 'iam_http_requests_total', labels), moved(nitroBefore, nitroAfter, 'iam_http_requests_total', labels)]).toEqual([1, 1])
  })

  it('is what these requests take, without Nitro\'s per-request hooks; every other request, and all of them with the lane off, take Nitro\'s path', async () => {
    const run = async (iam: IamServer, target: string) => {
      const before = await counted(iam)
      await (await fetch(`${iam.url}${target}`)).arrayBuffer()
      const after = await counted(iam)
      return { received: after.received - before.received, nitroPath: after.nitroPath - before.nitroPath }
    }
    expect(await run(lane, '/health')).toEqual({ received: 1, nitroPath: 0 })
    expect(await run(lane, '/oidc/jwks')).toEqual({ received: 1, nitroPath: 0 })
    expect(await run(lane, '/check')).toEqual({ received: 1, nitroPath: 1 })
    expect(await run(nitro, '/health')).toEqual({ received: 1, nitroPath: 1 })
    expect(await run(nitro, '/oidc/jwks')).toEqual({ received: 1, nitroPath: 1 })
  })
})
