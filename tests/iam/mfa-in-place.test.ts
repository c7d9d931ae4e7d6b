/**
 * The emailed code typed where the challenge met the person (GET /auth/verify-mfa/waiting, POST
 * /auth/verify-mfa/code): the session and device cookies name the challenge, no link needed.
 * anomalies.velocity.count is 1 here, so a second device's session is asked.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { authedGet, call, loginUser, newDevice, PROXY_CONFIG, setCookieValue, signupUser, type Session } from '../helpers/accounts'
import { startIam, type IamServer, type Json } from '../helpers/iam-server'
import { codeOf, recipients, startSmtp, type SmtpCapture } from '../helpers/smtp'

let smtp: SmtpCapture
let iam: IamServer
beforeAll(async () => {
  smtp = await startSmtp()
  iam = await startIam({
    config: { ...PROXY_CONFIG, email: { smtp: { host: '127.0.0.1', port: smtp.port, secure: false } }, anomalies: { velocity: { count: 1 } } },
  })
}, 240_000)
afterAll(async () => {
  await iam?.stop()
  await smtp?.stop()
})

/** A session on a second device, asked for the emailed code by its first request; and the code. */
async function askedSession(ip: string): Promise<{ session: Session; code: string }> {
  const signedUp = await signupUser(iam, { client: { ip } })
  const seen = new Set(smtp.mails)
  const session = await loginUser(iam, signedUp.email, signedUp.password, await newDevice(iam, { ip }))
  expect((await authedGet(iam, session)).status).toBe(202)
  const mail = await smtp.waitForMail((m) => !seen.has(m) && recipients(m).includes(session.email) && /confirm it/.test(m.subject ?? ''), 15_000)
  return { session, code: codeOf(mail) }
}

const waiting = (s: Partial<Session> & { ip: string; ua: string }) => call(iam, 'GET', '/auth/verify-mfa/waiting', { client: s, cookies: { session: s.refreshToken } })
const submit = (s: Session, code: string, over: Partial<Session> = {}) =>
  call(iam, 'POST', '/auth/verify-mfa/code', { client: { ...s, ...over }, cookies: { session: s.refreshToken }, body: { code } })

describe('the emailed code in place', () => {
  it('says where the code went (masked) and which check asked, for the session it waits on', async () => {
    const { session } = await askedSession('203.0.113.130')
    const res = await waiting(session)
    expect(res.status).toBe(200)
    const body = (await res.json()) as Json
    expect(body.data).toEqual({ sentTo: `${session.email[0]}***@${session.email.split('@')[1]}`, because: 'SESSION_VELOCITY', expiresAt: expect.any(String) })
    expect(JSON.stringify(body)).not.toContain(session.email)
  })

  it('signs the session in again with the right code from its own device, once: the session then answers 200 and nothing waits any more', async () => {
    const { session, code } = await askedSession('203.0.113.131')
    expect((await submit(session, '0000000' === code ? '1111111' : '0000000')).status).toBe(401)
    const res = await submit(session, code)
    const body = (await res.json()) as Json
    expect(res.status, JSON.stringify(body)).toBe(200)
    const renewed = { ...session, accessToken: body.accessToken as string, refreshToken: setCookieValue(res, 'session') ?? session.refreshToken }
    expect((await authedGet(iam, renewed)).status).toBe(200)
    expect((await waiting(renewed)).status).toBe(404)
    expect((await submit(renewed, code)).status).toBe(400)
  })

  it('refuses the right code from another device (400), and answers 404 / 400 without a session cookie', async () => {
    const { session, code } = await askedSession('203.0.113.132')
    const other = await newDevice(iam, { ip: '203.0.113.132' })
    expect((await submit(session, code, { canary: other.canary })).status).toBe(400)
    expect((await waiting({ ip: session.ip, ua: session.ua })).status).toBe(404)
    const noSession = await call(iam, 'POST', '/auth/verify-mfa/code', { client: session, body: { code } })
    expect(noSession.status).toBe(400)
    // the right code still works from the device it was sent for
    expect((await submit(session, code)).status).toBe(200)
  })
})
