/**
 * Second-factor guessing (docs/account-recovery.md, section 3): someone who knows the password can
 * sign in again and again, so fresh attempts per challenge and a per-IP limit alone would leave the
 * code unbounded. One failure budget per account spans challenges and routes
 * (secondFactor.accountFailures: 10 in 15 minutes lock code entry for 15 minutes and mail the
 * owner), and a new challenge ends the older ones.
 */
import { describe, expect, it } from 'vitest'
import { newDevice, uniqueEmail } from '../helpers/accounts'
import { mailTo, signupConfirmed } from '../helpers/confirm-email'
import type { Json } from '../helpers/iam-server'
import { sharedIam, sharedSmtp } from '../helpers/shared-iam'
import { authed, enrolTotp, passwordStep, secondFactor, totpCode } from './second-factor-http'

const iam = sharedIam()
const mails = sharedSmtp()

/** A 6-digit code that is not the account's now: the code of a step far away. */
const wrongCode = (secret: string) => totpCode(secret, 1000)

describe('the account-wide failure budget for second-factor codes', () => {
  it('locks code entry after 10 wrong codes across three challenges and a signed-in route; the right code is then refused with 429 and the owner is mailed', async () => {
    const user = await signupConfirmed(iam, mails, { client: { ip: '198.51.100.120' } })
    const { secret } = await enrolTotp(iam, user)
    const device = await newDevice(iam, { ip: '198.51.100.121' })

    const first = await passwordStep(iam, user, device)
    for (let i = 0; i < 4; i++) expect((await secondFactor(iam, device, first, wrongCode(secret))).status).toBe(401)
    const second = await passwordStep(iam, user, device)
    // the new challenge ended the first one
    const ended = await secondFactor(iam, device, first, wrongCode(secret))
    expect(ended.status).toBe(401)
    expect(await ended.json()).toMatchObject({ restart: true })
    for (let i = 0; i < 3; i++) expect((await secondFactor(iam, device, second, wrongCode(secret))).status).toBe(401)
    // the signed-in route spends the same budget
    for (let i = 0; i < 2; i++) expect((await authed(iam, user, 'POST', '/auth/totp/disable', { code: wrongCode(secret) })).status).toBe(400)
    const third = await passwordStep(iam, user, device)
    // the 10th failure locks
    const tenth = await secondFactor(iam, device, third, wrongCode(secret))
    expect(tenth.status).toBe(429)
    const locked = await secondFactor(iam, device, third, totpCode(secret, 1))
    expect(locked.status).toBe(429)
    const body = (await locked.json()) as Json
    expect(body).toMatchObject({ error: 'Too many requests', retry: expect.any(Number) })
    expect(body.retry as number).toBeGreaterThan(14 * 60)
    expect(body.retry as number).toBeLessThanOrEqual(15 * 60)
    expect(locked.headers.get('retry-after')).toBe(String(body.retry))
    expect(String(body.message)).toMatch(/^Too many wrong codes for this account\. Code entry is locked; try again in 15 minutes\.$/)
    expect((await authed(iam, user, 'POST', '/auth/totp/disable', { code: totpCode(secret, 1) })).status).toBe(429)
    const notice = await mailTo(mails, user.email, (m) => (m.subject ?? '').includes('code entry locked'))
    expect(notice.text).toContain('from 198.51.100.121')
    expect(`${notice.text}`).not.toContain(secret)
  })

  it('counts failures only: a right code in between gives its attempt back', async () => {
    const user = await signupConfirmed(iam, mails)
    const { secret } = await enrolTotp(iam, user)
    for (let i = 0; i < 9; i++) expect((await authed(iam, user, 'POST', '/auth/totp/disable', { code: wrongCode(secret) })).status).toBe(400)
    const device = await newDevice(iam)
    const challenge = await passwordStep(iam, user, device)
    expect((await secondFactor(iam, device, challenge, totpCode(secret, 1))).status).toBe(200)
    // nine failures spent, the right code's attempt given back: the tenth failure is the one that locks
    const again = await passwordStep(iam, user, device)
    expect((await secondFactor(iam, device, again, wrongCode(secret))).status).toBe(429)
  })

  it('a locked code entry answers a custom MFA flow and an email change proven by a second factor with the lock and when it ends', async () => {
    const user = await signupConfirmed(iam, mails)
    const { secret } = await enrolTotp(iam, user)
    for (const reason of ['PAYMENT_CONFIRM', 'change_email']) expect((await authed(iam, user, 'POST', `/custom/mfa/${reason}`, {})).status).toBe(200)
    for (let i = 0; i < 9; i++) expect((await authed(iam, user, 'POST', '/auth/totp/disable', { code: wrongCode(secret) })).status).toBe(400)
    expect((await authed(iam, user, 'POST', '/auth/totp/disable', { code: wrongCode(secret) })).status).toBe(429)

    const answers = [
      await authed(iam, user, 'POST', '/auth/verify-custom-mfa/second-factor', { reason: 'PAYMENT_CONFIRM', code: totpCode(secret, 1) }),
      await authed(iam, user, 'POST', '/update/email/second-factor', { newEmail: uniqueEmail('locked'), code: totpCode(secret, 1) }),
    ]
    for (const res of answers) {
      expect(res.status).toBe(429)
      const body = (await res.json()) as Json
      expect(body).toMatchObject({ error: 'Too many requests', retry: expect.any(Number) })
      expect(res.headers.get('retry-after')).toBe(String(body.retry))
      expect(String(body.message)).toMatch(/^Too many wrong codes for this account\. Code entry is locked; try again in 1[45] minutes\.$/)
    }
  })

  it('lets at most 10 wrong codes through when 30 arrive at once', async () => {
    const user = await signupConfirmed(iam, mails)
    const { secret } = await enrolTotp(iam, user)
    const answers = await Promise.all(Array.from({ length: 30 }, () => authed(iam, user, 'POST', '/auth/totp/disable', { code: wrongCode(secret) })))
    const statuses = answers.map((res) => res.status)
    expect(statuses.filter((s) => s === 400).length).toBeLessThanOrEqual(9)
    expect(statuses.filter((s) => s === 400).length + statuses.filter((s) => s === 429).length).toBe(30)
  })
})
