import { describe, expect, it } from 'vitest'
import { authedGet, call, newDevice, setCookieValue, signupUser, type Client, type Session } from '../helpers/accounts'
import type { Json } from '../helpers/iam-server'
import { sharedIam, sharedSmtp } from '../helpers/shared-iam'
import { codeOf, linkQueryOf, isVerificationMail, recipients, type ParsedMail } from '../helpers/smtp'

const iam = sharedIam()
const smtp = sharedSmtp()

const mailFor = (email: string) => smtp.waitForMail((m) => recipients(m).includes(email) && /confirm it/.test(m.subject ?? ''))

/** Signs up on one device, then uses the session from another: the new device asks for MFA. */
async function challenged(): Promise<{ user: Session; other: Client; mail: ParsedMail }> {
  const user = await signupUser(iam)
  const other = await newDevice(iam, { ip: user.ip })
  const res = await authedGet(iam, user, '/secret/data', { canary: other.canary })
  expect(res.status).toBe(202)
  expect(await res.json()).toEqual({ mfa: true, message: 'A login link has been sent to your email.', code: 'mfa_required' })
  return { user, other, mail: await mailFor(user.email) }
}

const verify = (query: string, code: unknown, client: Client, session?: string) =>
  call(iam, 'POST', `/auth/verify-mfa${query}`, { client, body: { code }, cookies: { session } })

describe('adaptive MFA', () => {
  it('mails a link and a code; preview, then code, issue new tokens for the new device', async () => {
    const { user, other, mail } = await challenged()
    expect(mail.subject).toBe('Acme: confirm it\'s you')
    expect(mail.html).toContain(codeOf(mail))
    const query = linkQueryOf(mail)
    expect(new URLSearchParams(query).get('reason')).toBe('MAGIC_LINK_MFA_CHECKS')
    expect(new URLSearchParams(query).get('visitor')).toBeTruthy()

    const preview = await call(iam, 'GET', `/auth/verify-mfa${query}`, { client: other })
    expect(preview.status).toBe(200)
    expect(await preview.json()).toEqual({ ok: true, date: expect.any(String), data: { link: 'MFA Code', reason: 'MAGIC_LINK_MFA_CHECKS' } })

    const res = await verify(query, codeOf(mail), other, user.refreshToken)
    const body = (await res.json()) as Json
    expect(res.status).toBe(200)
    expect(body).toEqual({ ok: true, date: expect.any(String), accessToken: expect.any(String), accessIat: expect.any(Number), expiresInMs: 900_000 })
    const refreshToken = setCookieValue(res, 'session')!
    expect(refreshToken).toBeTruthy()
    const after = await authedGet(iam, { ...user, ...other, accessToken: body.accessToken as string, refreshToken })
    expect(after.status).toBe(200)
  })

  it('does not mail again while the code is live (202 again, one mail)', async () => {
    const { user, other } = await challenged()
    const before = smtp.mails.filter((m) => recipients(m).includes(user.email) && !isVerificationMail(m)).length
    const again = await authedGet(iam, user, '/secret/data', { canary: other.canary })
    expect(again.status).toBe(202)
    expect(smtp.mails.filter((m) => recipients(m).includes(user.email) && !isVerificationMail(m)).length).toBe(before)
  })

  it('answers 400 for a consumed link, on GET and POST', async () => {
    const { user, other, mail } = await challenged()
    const query = linkQueryOf(mail)
    expect((await verify(query, codeOf(mail), other, user.refreshToken)).status).toBe(200)
    const get = await call(iam, 'GET', `/auth/verify-mfa${query}`, { client: other })
    expect(get.status).toBe(400)
    expect(await get.json()).toEqual({ ok: false, date: expect.any(String), error: 'Link already used', code: 'link_used' })
    const post = await verify(query, codeOf(mail), other)
    expect(post.status).toBe(400)
    expect(await post.json()).toEqual({ ok: false, date: expect.any(String), error: 'Link already used', code: 'link_used' })
  })

  it('answers 401 for a wrong code and ends the link after the attempt limit', async () => {
    const { other, mail } = await challenged()
    const query = linkQueryOf(mail)
    const wrong = codeOf(mail) === '0000000' ? '0000001' : '0000000'
    for (let i = 0; i < 3; i++) {
      const res = await verify(query, wrong, other)
      expect(res.status).toBe(401)
      expect(await res.json()).toEqual({ ok: false, date: expect.any(String), error: 'Invalid or expired code', code: 'code_invalid' })
    }
    const right = await verify(query, codeOf(mail), other)
    expect(right.status).toBe(400)
    expect(((await right.json()) as Json).error).toBe('Link already used')
  })

  it('answers 400 for malformed input: missing parameters, a bad code shape, a tampered token or visitor', async () => {
    const { other, mail } = await challenged()
    const query = new URLSearchParams(linkQueryOf(mail))
    expect((await verify('?token=x', codeOf(mail), other)).status).toBe(400)
    expect((await verify(`?${query}`, '12345', other)).status).toBe(400)
    expect((await verify(`?${query}`, 1234567, other)).status).toBe(400)
    const tampered = new URLSearchParams(query)
    tampered.set('token', `${query.get('token')!.slice(0, -2)}AA`)
    expect((await verify(`?${tampered}`, codeOf(mail), other)).status).toBe(400)
    const otherVisitor = new URLSearchParams(query)
    otherVisitor.set('visitor', 'someone-else')
    const res = await verify(`?${otherVisitor}`, codeOf(mail), other)
    expect(res.status).toBe(400)
    expect(await res.json()).toEqual({ ok: false, date: expect.any(String), error: 'Invalid link purpose or subject', code: 'link_mismatch' })
  })

  it('refuses the link from a device other than the challenged one', async () => {
    const { mail } = await challenged()
    const stranger = await newDevice(iam, { ip: '192.0.2.50' })
    const res = await verify(linkQueryOf(mail), codeOf(mail), stranger)
    expect(res.status).toBe(400)
  })

  it('lets exactly one of 20 parallel submissions of a valid link and code succeed', async () => {
    const { user, other, mail } = await challenged()
    const query = linkQueryOf(mail)
    const results = await Promise.all(Array.from({ length: 20 }, () => verify(query, codeOf(mail), other, user.refreshToken)))
    expect(results.filter((r) => r.status === 200)).toHaveLength(1)
    expect(results.filter((r) => r.status === 500)).toHaveLength(0)
  })
})
