/**
 * API tokens outlive account recovery. The reset and email-change notices name the
 * live tokens (never a raw token), a reset may revoke them all, and revoke-all ends every token of
 * the user and no one else's.
 */
import { describe, expect, it } from 'vitest'
import { call, ownSecurityEvents, setCookieValue, signupUser, uniqueEmail, type Session } from '../helpers/accounts'
import { signupConfirmed } from '../helpers/confirm-email'
import type { Json } from '../helpers/iam-server'
import { sharedIam, sharedSmtp } from '../helpers/shared-iam'
import { codeOf, linkQueryOf, recipients, type ParsedMail } from '../helpers/smtp'
import { ISO, manage, newToken, verify, type CreatedToken } from './api-tokens-http'

const NEW_PASSWORD = 'a brand new passphrase 2026'

const iam = sharedIam()
const smtp = sharedSmtp()

const mailTo = (email: string, subject: RegExp, after: Set<ParsedMail>) =>
  smtp.waitForMail((m) => !after.has(m) && recipients(m).includes(email) && subject.test(m.subject ?? ''))

/** Asks for a reset and submits the new password with `extra` in the body; the notice mail. */
async function resetPassword(user: Session, extra: Json): Promise<ParsedMail> {
  const before = new Set(smtp.mails)
  expect((await call(iam, 'POST', '/auth/forgot-password', { client: user, body: { email: user.email } })).status).toBe(200)
  const link = await mailTo(user.email, /reset your password/, before)
  const res = await call(iam, 'POST', `/auth/reset-password${linkQueryOf(link)}`, {
    client: user,
    body: { password: NEW_PASSWORD, confirmedPassword: NEW_PASSWORD, ...extra },
  })
  expect(res.status).toBe(200)
  return mailTo(user.email, /password was changed/, before)
}

const verifies = async (t: CreatedToken) => (await verify(iam, t.rawApiKey, 'full')).status

function expectNoRawToken(mail: ParsedMail, tokens: CreatedToken[]) {
  for (const t of tokens) {
    expect(mail.text).not.toContain(t.rawApiKey)
    expect(String(mail.html)).not.toContain(t.rawApiKey)
  }
}

describe('password reset and API tokens', () => {
  it('with revokeApiTokens: true every token of the user fails verification afterwards', async () => {
    const user = await signupUser(iam)
    const tokens = [await newToken(iam, user, { name: 'ci' }), await newToken(iam, user, { name: 'deploy' })]
    for (const t of tokens) expect(await verifies(t)).toBe(200)
    const notice = await resetPassword(user, { revokeApiTokens: true })
    for (const t of tokens) expect(await verifies(t)).toBe(401)
    expect(notice.text).toContain('2 API tokens were revoked')
    expect(notice.text).not.toContain('active API token')
    expectNoRawToken(notice, tokens)
  })

  it('with revokeApiTokens: false (or absent) the tokens still verify and the notice names them', async () => {
    // a confirmed address: on a never-confirmed one the reset removes every token (squatter.security.test.ts)
    const user = await signupConfirmed(iam, smtp)
    const ci = await newToken(iam, user, { name: 'ci-runner' })
    const deploy = await newToken(iam, user, { name: 'deploy-bot' })
    const notice = await resetPassword(user, { revokeApiTokens: false })
    expect(await verifies(ci)).toBe(200)
    expect(await verifies(deploy)).toBe(200)
    expect(notice.text).toContain('You have 2 active API tokens: ci-runner')
    expect(notice.text).toContain('deploy-bot')
    expect(notice.text).toContain(ci.rawPublicId)
    expect(notice.html).toContain('deploy-bot')
    expectNoRawToken(notice, [ci, deploy])
    const again = await resetPassword(user, {})
    expect(await verifies(ci)).toBe(200)
    expect(again.text).toContain('You have 2 active API tokens')
  })

  it('answers 400 for a revokeApiTokens that is not a boolean', async () => {
    const user = await signupUser(iam)
    const before = new Set(smtp.mails)
    expect((await call(iam, 'POST', '/auth/forgot-password', { client: user, body: { email: user.email } })).status).toBe(200)
    const link = await mailTo(user.email, /reset your password/, before)
    const res = await call(iam, 'POST', `/auth/reset-password${linkQueryOf(link)}`, {
      client: user,
      body: { password: NEW_PASSWORD, confirmedPassword: NEW_PASSWORD, revokeApiTokens: 'yes' },
    })
    expect(res.status).toBe(400)
    expect(((await res.json()) as Json).fields).toEqual({ revokeApiTokens: expect.any(String) })
  })
})

describe('email change and API tokens', () => {
  it('the notice to the old address names the live tokens and no raw token', async () => {
    const user = await signupUser(iam)
    const token = await newToken(iam, user, { name: 'nightly-export' })
    const before = new Set(smtp.mails)
    const authed = (method: string, path: string, body?: unknown) =>
      call(iam, method, path, { client: user, cookies: { session: user.refreshToken }, bearer: user.accessToken, body })
    expect((await authed('POST', '/custom/mfa/change_email', {})).status).toBe(200)
    const mail = await smtp.waitForMail((m) => !before.has(m) && recipients(m).includes(user.email) && (m.text ?? '').includes('reason=change_email&'))
    const newEmail = uniqueEmail('moved')
    const res = await authed('POST', `/update/email${linkQueryOf(mail)}`, { code: codeOf(mail), newEmail })
    expect(res.status).toBe(200)
    expect(setCookieValue(res, 'session')).toBeTruthy()
    // the address moves (and the old one is told) once the link mailed to the new one is used
    const confirmation = await smtp.waitForMail((m) => recipients(m).includes(newEmail) && (m.text ?? '').includes('reason=CONFIRM_EMAIL_CHANGE&'))
    expect((await call(iam, 'POST', `/auth/verify-email${linkQueryOf(confirmation)}`, { client: user })).status).toBe(200)
    const notice = await mailTo(user.email, /email address was changed/, before)
    expect(notice.text).toContain('You have 1 active API token: nightly-export')
    expect(notice.text).toContain(token.rawPublicId)
    expectNoRawToken(notice, [token])
  })
})

describe('POST /api/manage/revoke-all', () => {
  it('revokes every token of the user and no other user\'s', async () => {
    const user = await signupUser(iam)
    const other = await signupUser(iam, { client: { ip: '203.0.113.88' } })
    const mine = [await newToken(iam, user, { name: 'a' }), await newToken(iam, user, { name: 'b' }), await newToken(iam, user, { name: 'c' })]
    const theirs = await newToken(iam, other, { name: 'a' })
    const res = await manage(iam, user, 'revoke-all', { confirm: true })
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({
      ok: true,
      date: expect.stringMatching(ISO),
      data: { msg: 'All API tokens revoked', revokedCount: 3, userId: expect.any(Number) },
    })
    for (const t of mine) expect(await verifies(t)).toBe(401)
    expect(await verifies(theirs)).toBe(200)
    const list = (await (await manage(iam, user, 'list-metadata')).json()) as { data: { tokenList: unknown[] } }
    expect(list.data.tokenList ?? []).toEqual([])
  })

  it('answers 200 with revokedCount 0 when there is nothing to revoke', async () => {
    const user = await signupUser(iam)
    const res = await manage(iam, user, 'revoke-all', { confirm: true })
    expect(res.status).toBe(200)
    expect(((await res.json()) as { data: Json }).data.revokedCount).toBe(0)
  })

  it('answers 400 Bad Request without { confirm: true } and revokes nothing', async () => {
    const user = await signupUser(iam)
    const token = await newToken(iam, user)
    for (const body of [{}, { confirm: false }, { confirm: 'true' }, { confirm: true, extra: 1 }]) {
      const res = await manage(iam, user, 'revoke-all', body)
      expect(res.status).toBe(400)
      expect(await res.json()).toEqual({ ok: false, date: expect.stringMatching(ISO), reason: 'Bad Request', code: 'bad_request' })
    }
    expect(await verifies(token)).toBe(200)
  })

  it('requires authentication (401)', async () => {
    const user = await signupUser(iam)
    const res = await call(iam, 'POST', '/api/manage/revoke-all', { client: user, body: { confirm: true } })
    expect(res.status).toBe(401)
  })

  it('records a security event for the bulk revocation', async () => {
    const user = await signupUser(iam, { client: { ip: '198.51.100.66' } })
    await newToken(iam, user, { name: 'evt' })
    expect((await manage(iam, user, 'revoke-all', { confirm: true })).status).toBe(200)
    const events = (await ownSecurityEvents(iam, user)).filter((e) => e.type === 'api_tokens_revoked_all')
    expect(events).toHaveLength(1)
    expect(events[0]).toMatchObject({ type: 'api_tokens_revoked_all', ipAddress: '198.51.100.66', details: { cause: 'manage', revokedCount: 1 } })
  })
})
