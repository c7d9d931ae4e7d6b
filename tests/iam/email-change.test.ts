import { describe, expect, it } from 'vitest'
import { call, loginUser, refresh, setCookieValue, signupUser, uniqueEmail, type Session } from '../helpers/accounts'
import type { Json } from '../helpers/iam-server'
import { sharedIam, sharedSmtp } from '../helpers/shared-iam'
import { codeOf, linkQueryOf, recipients, type ParsedMail } from '../helpers/smtp'

const iam = sharedIam()
const smtp = sharedSmtp()

const authed = (s: Session, method: string, path: string, body?: unknown) =>
  call(iam, method, path, { client: s, cookies: { session: s.refreshToken }, bearer: s.accessToken, body })

async function startChange(s: Session): Promise<ParsedMail> {
  const res = await authed(s, 'POST', '/custom/mfa/change_email', {})
  expect(res.status).toBe(200)
  return smtp.waitForMail((m) => recipients(m).includes(s.email) && (m.text ?? '').includes('reason=change_email&'))
}

describe('POST /update/email', () => {
  it('moves the address, tells the old one, revokes every other session and keeps this one', async () => {
    const user = await signupUser(iam)
    const elsewhere = await loginUser(iam, user.email, user.password, user)
    const mail = await startChange(user)
    const newEmail = uniqueEmail('moved')
    const res = await authed(user, 'POST', `/update/email${linkQueryOf(mail)}`, { code: codeOf(mail), newEmail })
    const body = (await res.json()) as Json
    expect(res.status).toBe(200)
    expect(body).toEqual({ ok: true, date: expect.any(String), accessToken: expect.any(String), accessIat: expect.any(Number), expiresInMs: 900_000 })
    const current = { ...user, email: newEmail, accessToken: body.accessToken as string, refreshToken: setCookieValue(res, 'session')! }
    expect((await authed(current, 'GET', '/secret/data')).status).toBe(200)
    expect((await refresh(iam, elsewhere)).status).toBe(401)
    const notice = await smtp.waitForMail((m) => recipients(m).includes(user.email) && /email address was changed/.test(m.subject ?? ''))
    expect(notice.text).toContain(`${newEmail[0]}***@example.com`)
    await expect(loginUser(iam, newEmail, user.password, user)).resolves.toBeTruthy()
    await expect(loginUser(iam, user.email, user.password, user)).rejects.toThrow(/401/)
  })

  it('answers 400 for an address in use, changes nothing and leaves the link usable', async () => {
    const taken = await signupUser(iam)
    const user = await signupUser(iam)
    const mail = await startChange(user)
    const query = linkQueryOf(mail)
    const res = await authed(user, 'POST', `/update/email${query}`, { code: codeOf(mail), newEmail: taken.email.toUpperCase().replace('@EXAMPLE.COM', '@example.com') })
    expect(res.status).toBe(400)
    expect(await res.json()).toEqual({ ok: false, date: expect.any(String), error: 'Email already in use', code: 'email_taken', fields: { newEmail: 'Email already in use' } })
    expect((await authed(user, 'GET', '/secret/data')).status).toBe(200)
    await expect(loginUser(iam, user.email, user.password, user)).resolves.toBeTruthy()
    const retry = await authed(user, 'POST', `/update/email${query}`, { code: codeOf(mail), newEmail: uniqueEmail('retry') })
    expect(retry.status).toBe(200)
  })

  it('answers 400 for a malformed or disposable address before spending the link', async () => {
    const user = await signupUser(iam)
    const mail = await startChange(user)
    const query = linkQueryOf(mail)
    for (const newEmail of ['not-an-address', 'someone@mailinator.com']) {
      const res = await authed(user, 'POST', `/update/email${query}`, { code: codeOf(mail), newEmail })
      expect(res.status).toBe(400)
      expect(((await res.json()) as Json).fields).toEqual({ newEmail: expect.any(String) })
    }
    expect((await authed(user, 'POST', `/update/email${query}`, { code: codeOf(mail) })).status).toBe(400)
  })

  it('answers 401 for a wrong code and 400 for a link of another flow', async () => {
    const user = await signupUser(iam)
    const mail = await startChange(user)
    const wrong = codeOf(mail) === '7777777' ? '8888888' : '7777777'
    const res = await authed(user, 'POST', `/update/email${linkQueryOf(mail)}`, { code: wrong, newEmail: uniqueEmail() })
    expect(res.status).toBe(401)
    const pay = await authed(user, 'POST', '/custom/mfa/PAYMENT_CONFIRM', {})
    expect(pay.status).toBe(200)
    const payMail = await smtp.waitForMail((m) => recipients(m).includes(user.email) && (m.text ?? '').includes('reason=PAYMENT_CONFIRM&'))
    const other = await authed(user, 'POST', `/update/email${linkQueryOf(payMail)}`, { code: codeOf(payMail), newEmail: uniqueEmail() })
    expect(other.status).toBe(400)
  })

  // the child's PGlite lives in its own process: its rows are only readable when the IAM runs on PostgreSQL
  it.skipIf(!process.env.DATABASE_URL)('records a security event with user, device, IP and time', async () => {
    const user = await signupUser(iam, { client: { ip: '198.51.100.61' } })
    const mail = await startChange(user)
    const res = await authed(user, 'POST', `/update/email${linkQueryOf(mail)}`, { code: codeOf(mail), newEmail: uniqueEmail('evt') })
    expect(res.status).toBe(200)
    const { default: pg } = await import('pg')
    const client = new pg.Client({ connectionString: iam.share.databaseUrl })
    await client.connect()
    try {
      const { rows } = await client.query(
        `select e.type, e.ip_address, e.visitor_id, e.created_at from security_events e join users u on u.id = e.user_id
         where e.type = 'email_changed' and u.email like 'evt.%'`,
      )
      expect(rows).toHaveLength(1)
      expect(rows[0]).toMatchObject({ type: 'email_changed', ip_address: '198.51.100.61', visitor_id: expect.any(Number), created_at: expect.any(Date) })
    } finally {
      await client.end()
    }
  })

  it('requires authentication (401)', async () => {
    const user = await signupUser(iam)
    const mail = await startChange(user)
    const res = await call(iam, 'POST', `/update/email${linkQueryOf(mail)}`, { client: user, body: { code: codeOf(mail), newEmail: uniqueEmail() } })
    expect(res.status).toBe(401)
  })
})
