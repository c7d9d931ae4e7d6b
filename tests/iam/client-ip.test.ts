import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startIam, type IamServer } from '../helpers/iam-server'
import { requestLine } from '../helpers/logs'

// Starting IAM processes (PGlite boot, migrations) is slow on a loaded shared machine.
const START_TIMEOUT_MS = 180_000

// Dual-stack listener: an IPv4 peer's socket address is then "::ffff:127.0.0.1", which the IAM
// must normalise to 127.0.0.1 (and so recognise as the trusted proxy below).
let iam: IamServer
beforeAll(async () => {
  iam = await startIam({ env: { HOST: '::' }, config: { service: { proxy: { trust: true, ipToTrust: '127.0.0.1' } } } })
}, START_TIMEOUT_MS)
afterAll(() => iam?.stop())

type Line = Record<string, unknown>

async function requestLog(requestId: string): Promise<Line> {
  return JSON.parse(await requestLine(iam, requestId)) as Line
}

let n = 0
/** GET /health with an X-Forwarded-For; resolves with the status and the logged client IP. */
async function clientIpFor(forwardedFor?: string): Promise<{ status: number; ip: unknown; body: string }> {
  const requestId = `ip-test-${++n}`
  const res = await fetch(`${iam.url}/health`, {
    headers: { 'x-request-id': requestId, ...(forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor }) },
  })
  const line = await requestLog(requestId)
  return { status: res.status, ip: line?.ip, body: await res.text() }
}

describe('client IP behind the trusted proxy', () => {
  it('normalises the IPv4-mapped socket address: the proxy itself is the client without X-Forwarded-For', async () => {
    expect(await clientIpFor()).toMatchObject({ status: 200, ip: '127.0.0.1' })
  })
  it('takes the right-most X-Forwarded-For address that is not the proxy', async () => {
    expect(await clientIpFor('203.0.113.9')).toMatchObject({ status: 200, ip: '203.0.113.9' })
    expect(await clientIpFor('6.6.6.6, 203.0.113.9')).toMatchObject({ status: 200, ip: '203.0.113.9' })
    expect(await clientIpFor('203.0.113.9, 127.0.0.1')).toMatchObject({ status: 200, ip: '203.0.113.9' })
  })
  it('normalises an IPv4-mapped forwarded address', async () => {
    expect(await clientIpFor('::ffff:198.51.100.7')).toMatchObject({ status: 200, ip: '198.51.100.7' })
  })
  it('answers 403 plain text Forbidden when the client IP is invalid', async () => {
    const res = await fetch(`${iam.url}/health`, { headers: { 'x-forwarded-for': '1.2.3.4, not-an-ip' } })
    expect(res.status).toBe(403)
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/)
    expect(await res.text()).toBe('Forbidden')
  })
})

describe('request id', () => {
  it('echoes a sane X-Request-Id', async () => {
    const res = await fetch(`${iam.url}/health`, { headers: { 'x-request-id': 'abc-DEF_1.2' } })
    expect(res.headers.get('x-request-id')).toBe('abc-DEF_1.2')
  })
  it('generates one when absent or not sane', async () => {
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
    const absent = await fetch(`${iam.url}/health`)
    expect(absent.headers.get('x-request-id')).toMatch(uuid)
    for (const bad of ['has space', 'a'.repeat(129), 'semi;colon', '<script>']) {
      const res = await fetch(`${iam.url}/health`, { headers: { 'x-request-id': bad } })
      expect(res.headers.get('x-request-id')).toMatch(uuid)
    }
  })
  it('sets it on error responses too', async () => {
    const res = await fetch(`${iam.url}/nope`, { headers: { 'x-request-id': 'nf-1' } })
    expect(res.status).toBe(404)
    expect(res.headers.get('x-request-id')).toBe('nf-1')
  })
})

describe('request log', () => {
  it('writes one structured line per request without the query string', async () => {
    const res = await fetch(`${iam.url}/health?token=secret-token-value`, { headers: { 'x-request-id': 'log-1' } })
    expect(res.status).toBe(200)
    const line = await requestLog('log-1')
    expect(line).toMatchObject({ level: 'info', msg: 'request', requestId: 'log-1', method: 'GET', path: '/health', status: 200 })
    expect(typeof line?.durationMs).toBe('number')
    // the request's own line is in (requestLog waited for it): so is everything it caused
    expect(iam.logs.join('\n')).not.toContain('secret-token-value')
  })
})
