import { describe, expect, it } from 'vitest'
import { authedGet, newDevice } from '../helpers/accounts'
import type { Json } from '../helpers/iam-server'
import { signupConfirmed } from '../helpers/confirm-email'
import { sharedIam, sharedSmtp } from '../helpers/shared-iam'
import { recipients } from '../helpers/smtp'
import { expectDocumented } from './documented'
import { authed, enrolTotp, passwordStep, secondFactor, sessionOf } from './second-factor-http'

// the run's shared IAM (wide sign-in limits); the stale-session refusal is in stolen-session.security.test.ts
const iam = sharedIam()
const smtp = sharedSmtp()

describe('POST /auth/totp/recovery-codes', () => {
  it('replaces every recovery code by 10 new ones: an old code no longer signs in, a new one does', async () => {
    const user = await signupConfirmed(iam, smtp)
    const { recoveryCodes: old } = await enrolTotp(iam, user)
    const res = await authed(iam, user, 'POST', '/auth/totp/recovery-codes')
    expect(res.status).toBe(200)
    const body = (await res.json()) as Json
    expect(body).toMatchObject({ ok: true, date: expect.any(String) })
    expectDocumented('totpRecoveryCodes', 200, body)
    const fresh = (body.data as { recoveryCodes: string[] }).recoveryCodes
    expect(fresh).toHaveLength(10)
    for (const code of fresh) expect(code).toMatch(/^[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}$/)
    expect(new Set(fresh).size).toBe(10)
    expect(fresh.filter((code) => old.includes(code))).toEqual([])
    expect(((await (await authedGet(iam, user, '/auth/totp')).json()) as Json).data).toEqual({ enabled: true, recoveryCodesLeft: 10 })

    const device = await newDevice(iam)
    const refused = await secondFactor(iam, device, await passwordStep(iam, user, device), old[0]!)
    expect(refused.status).toBe(401)
    await sessionOf(await secondFactor(iam, device, await passwordStep(iam, user, device), fresh[0]!), user, device)
    expect(((await (await authedGet(iam, user, '/auth/totp')).json()) as Json).data).toEqual({ enabled: true, recoveryCodesLeft: 9 })
  })

  it('refuses an account without two-step sign-in with 409, and one whose setup is only pending', async () => {
    const user = await signupConfirmed(iam, smtp)
    const none = await authed(iam, user, 'POST', '/auth/totp/recovery-codes')
    expect(none.status).toBe(409)
    const refusal = await none.json()
    expect(refusal).toMatchObject({ ok: false, error: 'Two-step sign-in is not on' })
    expectDocumented('totpRecoveryCodes', 409, refusal)
    expect((await authed(iam, user, 'POST', '/auth/totp/setup')).status).toBe(200)
    expect((await authed(iam, user, 'POST', '/auth/totp/recovery-codes')).status).toBe(409)
    expect(((await (await authedGet(iam, user, '/auth/totp')).json()) as Json).data).toEqual({ enabled: false, recoveryCodesLeft: 0 })
  })

  it('records an event and mails the owner, never a code', async () => {
    const user = await signupConfirmed(iam, smtp, { client: { ip: '198.51.100.91' } })
    await enrolTotp(iam, user)
    const res = await authed(iam, user, 'POST', '/auth/totp/recovery-codes')
    expect(res.status).toBe(200)
    const fresh = (((await res.json()) as Json).data as { recoveryCodes: string[] }).recoveryCodes
    const events = (((await (await authedGet(iam, user, '/auth/security-events?limit=20')).json()) as Json).data as { events: Array<{ type: string; details: Json }> }).events
    const made = events.filter((e) => e.type === 'recovery_codes_regenerated')
    expect(made).toHaveLength(1)
    expect(made[0]!.details).toEqual({ count: 10 })
    const mail = await smtp.waitForMail((m) => recipients(m).includes(user.email) && (m.subject ?? '').includes('new recovery codes were made'))
    expect(mail.text).toContain('from 198.51.100.91')
    for (const code of fresh) expect(`${mail.subject} ${mail.text} ${mail.html}`).not.toContain(code)
    expect(JSON.stringify(events)).not.toContain(fresh[0]!)
  })
})
