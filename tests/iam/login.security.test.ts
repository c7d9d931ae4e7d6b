import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, newDevice, PROXY_CONFIG, signupBody, signupUser, uniqueEmail, type Client } from '../helpers/accounts'
import { startIam, type IamServer, type Json } from '../helpers/iam-server'
import { flushedLogs, waitForLogs } from '../helpers/logs'

let iam: IamServer
beforeAll(async () => {
  iam = await startIam({ config: { ...PROXY_CONFIG, rate_limiters: { login: { points: 100, duration: 60, blockDuration: 60 } } } })
}, 240_000)
afterAll(() => iam?.stop())

/** The hasher's running count of Argon2 verifications, from the IAM's debug log. */
function verificationCount(): number {
  const lines = iam.logs.filter((l) => l.includes('"login verification"'))
  const last = lines.at(-1)
  return last ? (JSON.parse(last) as Json).argon2Verifications as number : 0
}
const waitForLogCount = (n: number) => waitForLogs(iam, (l) => l.includes('"login verification"'), n)

describe('login (security)', () => {
  it('spends exactly one Argon2 verification on an unknown address, as on a known one', async () => {
    const s = await signupUser(iam, { client: { ip: '203.0.113.100' } })
    const seen = (await flushedLogs(iam)).filter((l) => l.includes('"login verification"')).length
    const before = verificationCount()
    await call(iam, 'POST', '/login', { client: s, body: { email: s.email, password: 'wrong password entirely' } })
    await waitForLogCount(seen + 1)
    const afterKnown = verificationCount()
    await call(iam, 'POST', '/login', { client: s, body: { email: uniqueEmail('nobody'), password: 'wrong password entirely' } })
    await waitForLogCount(seen + 2)
    const afterUnknown = verificationCount()
    expect(afterKnown - before).toBe(1)
    expect(afterUnknown - afterKnown).toBe(1)
  })
})

describe('XSS in free-text fields bans the device', () => {
  const cases: [string, string, (v: string) => Json][] = [
    ['signup name', '/signup', (v) => signupBody(uniqueEmail(), undefined, { name: v })],
    ['signup email', '/signup', (v) => signupBody(`${v}@example.com`)],
    ['login email', '/login', (v) => ({ email: v, password: 'whatever password 1' })],
  ]
  let n = 0
  for (const [label, path, body] of cases) {
    it(`${label}: 403 { banned: true }, then the device is refused`, async () => {
      const device: Client = await newDevice(iam, { ip: `192.0.2.${++n}` })
      const res = await call(iam, 'POST', path, { client: device, body: body('<script>alert(1)</script>') })
      expect(res.status).toBe(403)
      expect(await res.json()).toEqual({ banned: true, code: 'xss_rejected' })
      const check = await call(iam, 'GET', '/check', { client: device })
      expect(check.status).toBe(403)
      expect(((await check.json()) as Json).results).toMatchObject({ banned: true })
    })
  }

  it('plain text with < or % is not XSS', async () => {
    const device = await newDevice(iam, { ip: '192.0.2.200' })
    const res = await call(iam, 'POST', '/signup', { client: device, body: signupBody(uniqueEmail(), undefined, { name: 'a < b, 50% off' }) })
    expect(res.status).toBe(201)
  })
})
