import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, loginUser, newDevice, PROXY_CONFIG, signupUser, uniqueEmail } from '../helpers/accounts'
import { startIam, type IamServer } from '../helpers/iam-server'
import { LOOPBACK_SCRAPER, moved, parsePrometheusText, scrapeMetrics } from '../helpers/prometheus'
import { verify } from './api-tokens-http'

const START_TIMEOUT_MS = 180_000
const METRICS_TOKEN = 'metrics-token-0123456789-abcdefghijklmnop'
const Hmac = { clientId: 'gateway', sharedSecret: 'test-shared-secret-0123456789-abcdefghij', maxClockSkew: 300_000 }
const REMOTE = '203.0.113.9'

// Behind a trusted proxy on loopback: X-Forwarded-For names the client (LOOPBACK_SCRAPER: ::1, on
// the allow-list); a request without it is the proxy's own, which the allow-list never admits.
// login: 2 points per account key.
let iam: IamServer
// The same with service.Hmac: /metrics is exempt from the signature, other routes are not.
let signed: IamServer
beforeAll(async () => {
  const service = { ...PROXY_CONFIG.service, metrics: { allow: ['127.0.0.1', '::1', '198.51.100.0/24'] } }
  ;[iam, signed] = await Promise.all([
    startIam({ config: { service, secrets: { metricsToken: METRICS_TOKEN }, rate_limiters: { login: { points: 2, duration: 60, blockDuration: 60 } } } }),
    startIam({ config: { service: { ...service, Hmac } } }),
  ])
}, START_TIMEOUT_MS)
afterAll(() => Promise.all([iam?.stop(), signed?.stop()]))


const scrape = (server = iam, headers: Record<string, string> = LOOPBACK_SCRAPER) => scrapeMetrics(server.url, headers)

describe('GET /metrics', () => {
  it('answers Prometheus text with the process metrics and the declared families', async () => {
    const text = await scrape()
    expect(text.types.get('iam_process_cpu_user_seconds_total')).toBe('counter')
    expect(text.types.get('iam_http_requests_total')).toBe('counter')
    expect(text.types.get('iam_http_request_duration_seconds')).toBe('histogram')
    expect(text.value('iam_dependency_errors_total', { dependency: 'database' })).toBe(0)
    expect(text.value('iam_dependency_errors_total', { dependency: 'storage' })).toBe(0)
  })

  it('counts a failed login once: the login outcome, the request by route and status, the latency histogram', async () => {
    const client = await newDevice(iam)
    const before = await scrape()
    const res = await call(iam, 'POST', '/login', { client, body: { email: uniqueEmail('nobody'), password: 'wrong password 123' } })
    expect(res.status).toBe(401)
    const after = await scrape()
    expect(moved(before, after, 'iam_logins_total', { outcome: 'invalid_credentials' })).toBe(1)
    expect(moved(before, after, 'iam_logins_total', { outcome: 'ok' })).toBe(0)
    const labels = { method: 'POST', route: '/login', status: '401' }
    expect(moved(before, after, 'iam_http_requests_total', labels)).toBe(1)
    expect(moved(before, after, 'iam_http_request_duration_seconds_count', labels)).toBe(1)
    expect(moved(before, after, 'iam_http_request_duration_seconds_bucket', { ...labels, le: '+Inf' })).toBe(1)
  })

  it('shows the Argon2id jobs running and waiting, none once every sign-in was answered', async () => {
    const session = await signupUser(iam)
    await loginUser(iam, session.email, session.password, session)
    const text = await scrape()
    expect(text.types.get('iam_password_hash_jobs')).toBe('gauge')
    expect(text.value('iam_password_hash_jobs', { state: 'running' })).toBe(0)
    expect(text.value('iam_password_hash_jobs', { state: 'waiting' })).toBe(0)
  })

  it('counts a successful login and its security event', async () => {
    const session = await signupUser(iam)
    const before = await scrape()
    await loginUser(iam, session.email, session.password, session)
    const after = await scrape()
    expect(moved(before, after, 'iam_logins_total', { outcome: 'ok' })).toBe(1)
    expect(moved(before, after, 'iam_security_events_total', { type: 'login_succeeded' })).toBe(1)
  })

  it('counts limiter rejections by limiter name', async () => {
    const client = await newDevice(iam)
    const email = uniqueEmail('limited')
    const before = await scrape()
    const statuses: number[] = []
    for (let i = 0; i < 3; i++) {
      statuses.push((await call(iam, 'POST', '/login', { client, body: { email, password: 'wrong password 123' } })).status)
    }
    expect(statuses).toEqual([401, 401, 429])
    const after = await scrape()
    expect(moved(before, after, 'iam_rate_limit_rejections_total', { limiter: 'login-account' })).toBe(1)
  })

  it('counts API token verifications by outcome', async () => {
    const before = await scrape()
    const res = await verify(iam, 'not-a-token', 'full')
    expect(res.status).toBe(401)
    const after = await scrape()
    expect(moved(before, after, 'iam_api_token_verifications_total', { outcome: 'Invalid key' })).toBe(1)
  })

  it('labels requests by route template, never by raw path', async () => {
    const client = await newDevice(iam)
    const marker = `zz${Date.now().toString(36)}`
    const before = await scrape()
    await call(iam, 'GET', `/auth/oidc/interaction/${marker}`, { client })
    await call(iam, 'GET', `/${marker}/nothing-here`, { client })
    const res = await fetch(`${iam.url}/metrics`, { headers: LOOPBACK_SCRAPER })
    expect(res.status).toBe(200)
    const text = await res.text()
    expect(text).not.toContain(marker)
    const after = parsePrometheusText(text)
    const manage = after.samples.filter((s) => s.name === 'iam_http_requests_total' && s.labels.route === '/auth/oidc/interaction/:uid')
    expect(manage.length).toBeGreaterThan(0)
    expect(moved(before, after, 'iam_http_requests_total', { method: 'GET', route: 'unmatched', status: '404' })).toBe(1)
  })

  it('refuses a client outside service.metrics.allow with 403', async () => {
    const res = await fetch(`${iam.url}/metrics`, { headers: { 'x-forwarded-for': REMOTE } })
    expect(res.status).toBe(403)
    expect(await res.json()).toEqual({ error: 'Forbidden', code: 'forbidden' })
  })

  it('admits a client inside an allowed CIDR and refuses one just outside it', async () => {
    const inside = await fetch(`${iam.url}/metrics`, { headers: { 'x-forwarded-for': '198.51.100.77' } })
    expect(inside.status).toBe(200)
    expect(parsePrometheusText(await inside.text()).types.get('iam_http_requests_total')).toBe('counter')
    const outside = await fetch(`${iam.url}/metrics`, { headers: { 'x-forwarded-for': '198.51.101.77' } })
    expect(outside.status).toBe(403)
  })

  it('refuses a request of the trusted loopback proxy that names no client, and admits the bearer token on it', async () => {
    // resolved to the proxy's 127.0.0.1, which is on the allow-list: that says where it entered, not who sent it
    for (const headers of [{}, { 'x-forwarded-for': '127.0.0.1' }] as Array<Record<string, string>>) {
      const res = await fetch(`${iam.url}/metrics`, { headers })
      expect(res.status).toBe(403)
      expect(await res.json()).toEqual({ error: 'Forbidden', code: 'forbidden' })
    }
    const text = await scrape(iam, { authorization: `Bearer ${METRICS_TOKEN}` })
    expect(text.types.get('iam_http_requests_total')).toBe('counter')
  })

  it('admits the metrics bearer token from anywhere', async () => {
    const text = await scrape(iam, { 'x-forwarded-for': REMOTE, authorization: `Bearer ${METRICS_TOKEN}` })
    expect(text.types.has('iam_http_requests_total')).toBe(true)
  })

  it('refuses a wrong bearer token with 403, even from an allowed address', async () => {
    for (const headers of [{ 'x-forwarded-for': REMOTE }, LOOPBACK_SCRAPER] as Array<Record<string, string>>) {
      const res = await fetch(`${iam.url}/metrics`, { headers: { ...headers, authorization: `Bearer ${METRICS_TOKEN}x` } })
      expect(res.status).toBe(403)
    }
  })

  it('refuses every token when none is configured', async () => {
    const res = await fetch(`${signed.url}/metrics`, { headers: { 'x-forwarded-for': REMOTE, authorization: 'Bearer anything-at-all' } })
    expect(res.status).toBe(403)
  })

  it('is exempt from HMAC while other routes are not', async () => {
    await scrape(signed)
    expect((await fetch(`${signed.url}/check`)).status).toBe(401)
  })
})
