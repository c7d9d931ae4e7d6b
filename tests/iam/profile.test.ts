import { describe, expect, it } from 'vitest'
import { authedGet, call, newDevice, type Session } from '../helpers/accounts'
import type { Json } from '../helpers/iam-server'
import { signupConfirmed } from '../helpers/confirm-email'
import { sharedIam, sharedSmtp } from '../helpers/shared-iam'
import { SoftAuthenticator } from '../helpers/webauthn-authenticator'
import { registerPasskey } from './passkeys-http'
import { authed } from './second-factor-http'

const iam = sharedIam()
const mails = sharedSmtp()

const events = async (s: Session) => ((await (await authedGet(iam, s, '/auth/security-events?limit=20')).json()) as { data: { events: Json[] } }).data.events
const passkeys = async (s: Session) => ((await (await authed(iam, s, 'GET', '/auth/passkeys')).json()) as { data: { passkeys: Array<{ id: number; name: string }> } }).data.passkeys

describe('POST /auth/profile', () => {
  it('stores the trimmed name, answers it and records profile_updated', async () => {
    const user = await signupConfirmed(iam, mails)
    const res = await authed(iam, user, 'POST', '/auth/profile', { name: '  Ada Lovelace  ' })
    expect(res.status).toBe(200)
    // the answer names the account's language and time zone too: null until chosen or named by a browser
    expect(await res.json()).toEqual({ ok: true, date: expect.any(String), data: { name: 'Ada Lovelace', locale: null, timeZone: null } })
    const metadata = (await (await authedGet(iam, user, '/secret/accesstoken/metadata')).json()) as Json
    expect(metadata.name).toBe('Ada Lovelace')
    expect((await events(user)).map((e) => e.type)).toContain('profile_updated')
  })

  it('refuses an empty name and one over 100 characters with 400 at the field', async () => {
    const user = await signupConfirmed(iam, mails)
    for (const name of ['   ', 'x'.repeat(101)]) {
      const res = await authed(iam, user, 'POST', '/auth/profile', { name })
      expect(res.status, name).toBe(400)
      expect(((await res.json()) as { fields?: Json }).fields).toHaveProperty('name')
    }
    expect((await authed(iam, user, 'POST', '/auth/profile', { name: 'x'.repeat(100) })).status).toBe(200)
  })

  it('bans the device for markup in the name', async () => {
    const user = await signupConfirmed(iam, mails)
    const res = await authed(iam, user, 'POST', '/auth/profile', { name: '<script>alert(1)</script>' })
    expect(res.status).toBe(403)
    expect(await res.json()).toEqual({ banned: true, code: 'xss_rejected' })
  })

  it('answers 401 without a session', async () => {
    expect((await call(iam, 'POST', '/auth/profile', { client: await newDevice(iam), body: { name: 'Ada' } })).status).toBe(401)
  })
})

describe('POST /auth/passkeys/rename', () => {
  it('renames the passkey (trimmed) and answers its view', async () => {
    const user = await signupConfirmed(iam, mails)
    const { id } = await registerPasskey(iam, user, new SoftAuthenticator(), 'Laptop')
    const res = await authed(iam, user, 'POST', '/auth/passkeys/rename', { id, name: ' Work phone ' })
    expect(res.status).toBe(200)
    expect(((await res.json()) as { data: { passkey: Json } }).data.passkey).toMatchObject({ id, name: 'Work phone' })
    expect(await passkeys(user)).toMatchObject([{ id, name: 'Work phone' }])
  })

  it('refuses an empty name, one over 64 characters and a missing id with 400', async () => {
    const user = await signupConfirmed(iam, mails)
    const { id } = await registerPasskey(iam, user, new SoftAuthenticator(), 'Laptop')
    for (const body of [{ id, name: ' ' }, { id, name: 'x'.repeat(65) }, { name: 'Phone' }]) {
      expect((await authed(iam, user, 'POST', '/auth/passkeys/rename', body)).status, JSON.stringify(body)).toBe(400)
    }
    expect(await passkeys(user)).toMatchObject([{ id, name: 'Laptop' }])
  })

  it("answers 404 for another account's passkey and leaves its name alone", async () => {
    const owner = await signupConfirmed(iam, mails)
    const intruder = await signupConfirmed(iam, mails)
    const { id } = await registerPasskey(iam, owner, new SoftAuthenticator(), 'Laptop')
    expect((await authed(iam, intruder, 'POST', '/auth/passkeys/rename', { id, name: 'Mine now' })).status).toBe(404)
    expect(await passkeys(owner)).toMatchObject([{ id, name: 'Laptop' }])
  })

  it('bans the device for markup in the name', async () => {
    const user = await signupConfirmed(iam, mails)
    const { id } = await registerPasskey(iam, user, new SoftAuthenticator(), 'Laptop')
    const res = await authed(iam, user, 'POST', '/auth/passkeys/rename', { id, name: '<img src=x onerror=alert(1)>' })
    expect(res.status).toBe(403)
    expect(await res.json()).toEqual({ banned: true, code: 'xss_rejected' })
  })

  it('answers 401 without a session', async () => {
    expect((await call(iam, 'POST', '/auth/passkeys/rename', { client: await newDevice(iam), body: { id: 1, name: 'x' } })).status).toBe(401)
  })
})
