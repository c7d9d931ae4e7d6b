/**
 * The refresh-token (`session`) cookie is host-only unless jwt.refresh_tokens.domain is set; a
 * configured domain sends it to every subdomain, so the IAM names that risk in a warning at start.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, newDevice, PROXY_CONFIG, setCookieLine, signupUser, STRONG_PASSWORD } from '../helpers/accounts'
import { startIam, type IamEndpoint, type IamServer } from '../helpers/iam-server'
import { flushedLogs, waitForLog } from '../helpers/logs'
import { sharedIam } from '../helpers/shared-iam'

// the default (no domain) is the run's shared IAM
const hostOnly = sharedIam()
let withDomain: IamServer
beforeAll(async () => {
  withDomain = await startIam({ config: { ...PROXY_CONFIG, jwt: { refresh_tokens: { domain: 'example.test' } } } })
}, 240_000)
afterAll(() => withDomain?.stop())

async function loginCookie(iam: IamEndpoint): Promise<string> {
  const user = await signupUser(iam, { client: { ip: '203.0.113.150' } })
  const device = await newDevice(iam, { ip: '203.0.113.151' })
  const res = await call(iam, 'POST', '/login', { client: device, body: { email: user.email, password: STRONG_PASSWORD } })
  expect(res.status).toBe(200)
  return setCookieLine(res, 'session')!
}

const SUBDOMAIN_WARNING = 'refresh cookie is sent to every subdomain of'

describe('session cookie domain', () => {
  it('sets the session cookie of a login without a Domain attribute by default (host-only)', async () => {
    const cookie = await loginCookie(hostOnly)
    expect(cookie).toMatch(/^session=[A-Za-z0-9_-]{43};/)
    expect(cookie).not.toMatch(/Domain=/i)
    expect((await flushedLogs(hostOnly)).some((line) => line.includes(SUBDOMAIN_WARNING))).toBe(false)
  })

  it('sets Domain only when jwt.refresh_tokens.domain is configured', async () => {
    expect(await loginCookie(withDomain)).toMatch(/Domain=example\.test/i)
  })

  it('warns at start, naming the domain, when jwt.refresh_tokens.domain is configured', async () => {
    const warning = await waitForLog(withDomain, SUBDOMAIN_WARNING)
    expect(JSON.parse(warning)).toMatchObject({ level: 'warn', msg: expect.stringContaining('refresh cookie is sent to every subdomain of example.test') })
  })
})
