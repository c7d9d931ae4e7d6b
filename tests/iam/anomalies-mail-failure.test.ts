import { createServer } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { authedGet, newDevice, PROXY_CONFIG, signupUser } from '../helpers/accounts'
import { startIam, type IamServer } from '../helpers/iam-server'

let iam: IamServer
beforeAll(async () => {
  // a port that was free a moment ago: nothing listens there, so every mail fails at once
  const probe = createServer()
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r))
  const port = (probe.address() as { port: number }).port
  await new Promise<void>((r) => probe.close(() => r()))
  iam = await startIam({ config: { ...PROXY_CONFIG, email: { smtp: { host: '127.0.0.1', port, secure: false } } } })
}, 240_000)
afterAll(() => iam?.stop())

describe('adaptive MFA when the mail cannot be sent', () => {
  it('answers 500 with a clear error and does not leave the session MFA-pending', async () => {
    const s = await signupUser(iam, { client: { ip: '203.0.113.130' } })
    const other = await newDevice(iam, { ip: '203.0.113.130' })
    const res = await authedGet(iam, s, '/secret/data', { canary: other.canary })
    expect(res.status).toBe(500)
    expect(await res.json()).toEqual({ ok: false, date: expect.any(String), error: 'Could not send the verification email; try again later', code: 'mail_failed' })
    // not cached as pending: the owner's own device still works
    expect((await authedGet(iam, s)).status).toBe(200)
  })
})
