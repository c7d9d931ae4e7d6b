import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, newDevice, ownSecurityEvents, PROXY_CONFIG } from '../helpers/accounts'
import { advanceClock, CLOCK_ENV } from '../helpers/clock'
import { startIam, type IamServer, type Json } from '../helpers/iam-server'
import { signupConfirmed } from '../helpers/confirm-email'
import { sharedIam, sharedSmtp } from '../helpers/shared-iam'
import { SoftAuthenticator } from '../helpers/webauthn-authenticator'
import { loginOptions, loginOptionsResponse, loginVerify, registerOptions, registerPasskey, registerVerify } from './passkeys-http'
import { authed, WIDE_LOGIN } from './second-factor-http'

// the run's shared IAM (proxy trust, wide sign-up and sign-in limits); the limits and the
// challenge lifetime below start IAMs of their own
const iam = sharedIam()
const mails = sharedSmtp()

const REFUSED = { ok: false, date: expect.any(String), error: 'The passkey could not be verified; try again', code: 'invalid_credentials' }

async function userWithPasskey() {
  const user = await signupConfirmed(iam, mails)
  const authenticator = new SoftAuthenticator()
  const { passkey, id } = await registerPasskey(iam, user, authenticator)
  return { user, authenticator, passkey, id }
}

describe('sign-in challenges', () => {
  it('are single use: a replayed assertion is refused', async () => {
    const { authenticator, passkey } = await userWithPasskey()
    const device = await newDevice(iam)
    const assertion = authenticator.assert(await loginOptions(iam, device), passkey)
    expect((await loginVerify(iam, device, assertion)).status).toBe(200)
    const replay = await loginVerify(iam, device, assertion)
    expect(replay.status).toBe(401)
    expect(await replay.json()).toEqual(REFUSED)
  })

  it('give one success to 10 parallel submissions of one assertion', async () => {
    const { authenticator, passkey } = await userWithPasskey()
    const device = await newDevice(iam)
    const assertion = authenticator.assert(await loginOptions(iam, device), passkey)
    const statuses = await Promise.all(Array.from({ length: 10 }, async () => (await loginVerify(iam, device, assertion)).status))
    expect(statuses.filter((s) => s === 200)).toHaveLength(1)
    expect(statuses.filter((s) => s === 401)).toHaveLength(9)
  })

  it('are bound to the device they were issued to, and another device cannot spend them', async () => {
    const { authenticator, passkey } = await userWithPasskey()
    const device = await newDevice(iam)
    const elsewhere = await newDevice(iam, { ip: '198.51.100.99' })
    const options = await loginOptions(iam, device)
    expect((await loginVerify(iam, elsewhere, authenticator.assert(options, passkey))).status).toBe(401)
    expect((await loginVerify(iam, device, authenticator.assert(options, passkey))).status).toBe(200)
  })

  it('refuse a challenge the IAM never issued', async () => {
    const { authenticator, passkey } = await userWithPasskey()
    const device = await newDevice(iam)
    const options = await loginOptions(iam, device)
    const forged = authenticator.assert(options, passkey, { challenge: Buffer.alloc(32, 7).toString('base64url') })
    expect((await loginVerify(iam, device, forged)).status).toBe(401)
  })

  it('require the canary_id cookie', async () => {
    const device = await newDevice(iam)
    expect((await loginOptionsResponse(iam, { ...device, canary: undefined })).status).toBe(400)
    expect((await loginVerify(iam, { ...device, canary: undefined }, {})).status).toBe(400)
  })
})

describe('assertions that do not verify', () => {
  it('refuses a wrong origin, a wrong rpID and a missing user verification with one body', async () => {
    const { authenticator, passkey } = await userWithPasskey()
    const device = await newDevice(iam)
    for (const over of [{ origin: 'http://localhost.evil.example' }, { rpId: 'evil.example' }, { userVerified: false }]) {
      const res = await loginVerify(iam, device, authenticator.assert(await loginOptions(iam, device), passkey, over))
      expect(res.status, JSON.stringify(over)).toBe(401)
      expect(await res.json()).toEqual(REFUSED)
    }
  })

  it('refuses an unknown passkey with the same answer as a bad signature', async () => {
    const { authenticator, passkey } = await userWithPasskey()
    const stranger = new SoftAuthenticator()
    const { passkey: unknown } = stranger.register({ challenge: 'x', user: { id: 'y' } })
    const device = await newDevice(iam)
    const unknownRes = await loginVerify(iam, device, stranger.assert(await loginOptions(iam, device), unknown))
    const badSig = authenticator.assert(await loginOptions(iam, device), passkey)
    badSig.response.signature = stranger.assert({ challenge: 'z' }, unknown).response.signature
    const badSigRes = await loginVerify(iam, device, badSig)
    expect([unknownRes.status, badSigRes.status]).toEqual([401, 401])
    expect(await unknownRes.json()).toEqual(REFUSED)
    expect(await badSigRes.json()).toEqual(REFUSED)
  })

  it('refuses a sign counter that goes backwards (a cloned authenticator) and keeps the stored one', async () => {
    const { authenticator, passkey } = await userWithPasskey()
    const device = await newDevice(iam)
    expect((await loginVerify(iam, device, authenticator.assert(await loginOptions(iam, device), passkey, { counter: 10 }))).status).toBe(200)
    for (const counter of [9, 10]) {
      const res = await loginVerify(iam, device, authenticator.assert(await loginOptions(iam, device), passkey, { counter }))
      expect(res.status, `counter ${counter}`).toBe(401)
    }
    expect((await loginVerify(iam, device, authenticator.assert(await loginOptions(iam, device), passkey, { counter: 11 }))).status).toBe(200)
  })

  it('records passkey added, counter regressed, sign-in and removed as security events, never a key', async () => {
    const { user, authenticator, passkey, id } = await userWithPasskey()
    const device = await newDevice(iam, { ip: '198.51.100.78' })
    expect((await loginVerify(iam, device, authenticator.assert(await loginOptions(iam, device), passkey, { counter: 5 }))).status).toBe(200)
    expect((await loginVerify(iam, device, authenticator.assert(await loginOptions(iam, device), passkey, { counter: 4 }))).status).toBe(401)
    expect((await authed(iam, user, 'POST', '/auth/passkeys/delete', { id })).status).toBe(200)
    const events = (await ownSecurityEvents(iam, user)).filter((e) => e.type.startsWith('passkey') || e.type.startsWith('second_factor'))
    expect(events.map(({ type, details }) => ({ type, details }))).toEqual([
      { type: 'second_factor_added', details: { method: 'passkey', passkeyId: id } },
      { type: 'passkey_sign_in', details: { passkeyId: id } },
      { type: 'passkey_counter_regressed', details: { passkeyId: id, stored: 5, received: 4 } },
      { type: 'second_factor_removed', details: { method: 'passkey', passkeyId: id } },
    ])
  })

  it('refuses malformed credentials with 400 before any lookup', async () => {
    const device = await newDevice(iam)
    for (const credential of [undefined, 'x', { id: 'a', rawId: 'a', type: 'public-key', response: {} }, { id: 'a b', rawId: 'a', type: 'public-key', response: { clientDataJSON: 'a', authenticatorData: 'a', signature: 'a' } }]) {
      const res = await loginVerify(iam, device, credential)
      expect(res.status, JSON.stringify(credential)).toBe(400)
    }
  })
})

describe('no enumeration', () => {
  it('answers login options naming no account, the same shape for every visitor', async () => {
    await userWithPasskey()
    const a = await loginOptions(iam, await newDevice(iam))
    const b = await loginOptions(iam, await newDevice(iam, { ip: '198.51.100.31' }))
    expect(Object.keys(a).sort()).toEqual(Object.keys(b).sort())
    expect({ ...a, challenge: undefined }).toEqual({ ...b, challenge: undefined })
    expect(a.allowCredentials).toEqual([])
    expect(a.challenge).not.toBe(b.challenge)
  })
})

describe('registration challenges', () => {
  it("are bound to the account: another account's session cannot finish them", async () => {
    const owner = await signupConfirmed(iam, mails)
    const other = await signupConfirmed(iam, mails, { client: owner })
    const { credential } = new SoftAuthenticator().register(await registerOptions(iam, owner))
    const res = await registerVerify(iam, other, credential)
    expect(res.status).toBe(400)
    expect((await registerVerify(iam, owner, credential)).status).toBe(200)
  })

  it('are single use, and refuse a wrong origin or rpID', async () => {
    const user = await signupConfirmed(iam, mails)
    const authenticator = new SoftAuthenticator()
    const { credential } = authenticator.register(await registerOptions(iam, user))
    expect((await registerVerify(iam, user, credential)).status).toBe(200)
    expect((await registerVerify(iam, user, credential)).status).toBe(400)
    for (const over of [{ origin: 'http://evil.example' }, { rpId: 'evil.example' }, { userVerified: false }]) {
      const res = await registerVerify(iam, user, authenticator.register(await registerOptions(iam, user), over).credential)
      expect(res.status, JSON.stringify(over)).toBe(400)
    }
    const list = (await (await authed(iam, user, 'GET', '/auth/passkeys')).json()) as { data: { passkeys: Json[] } }
    expect(list.data.passkeys).toHaveLength(1)
  })

  it('keep one registration in progress per account: new options end the earlier ones', async () => {
    const user = await signupConfirmed(iam, mails)
    const authenticator = new SoftAuthenticator()
    const first = authenticator.register(await registerOptions(iam, user))
    const second = authenticator.register(await registerOptions(iam, user))
    expect((await registerVerify(iam, user, first.credential)).status).toBe(400)
    expect((await registerVerify(iam, user, second.credential)).status).toBe(200)
  })

  it('bans the device for markup in the passkey name', async () => {
    const user = await signupConfirmed(iam, mails)
    const { credential } = new SoftAuthenticator().register(await registerOptions(iam, user))
    const res = await registerVerify(iam, user, credential, '<script>alert(1)</script>')
    expect(res.status).toBe(403)
    expect(await res.json()).toMatchObject({ banned: true })
  })
})

describe('limits', () => {
  let limited: IamServer
  beforeAll(async () => {
    // login points 2: the per-IP login budget is 2 x 5 = 10 attempts; passkey options 40 a minute per IP
    limited = await startIam({
      config: { ...PROXY_CONFIG, rate_limiters: { login: { points: 2, duration: 600, blockDuration: 600 }, passkeyOptions: { points: 40, duration: 600, blockDuration: 600 } } },
    })
  }, 180_000)
  afterAll(async () => {
    await limited?.stop()
  })

  it('counts failed passkey verifications against the login budget of the address', async () => {
    const device = await newDevice(limited, { ip: '203.0.113.77' })
    const stranger = new SoftAuthenticator()
    const { passkey } = stranger.register({ challenge: 'x', user: { id: 'y' } })
    for (let i = 0; i < 10; i++) {
      expect((await loginVerify(limited, device, stranger.assert(await loginOptions(limited, device), passkey))).status).toBe(401)
    }
    const res = await loginVerify(limited, device, stranger.assert(await loginOptions(limited, device), passkey))
    expect(res.status).toBe(429)
    const login = await call(limited, 'POST', '/login', { client: device, body: { email: 'someone@example.com', password: 'whatever it is' } })
    expect(login.status).toBe(429)
  })

  it('spends none of the login budget on sign-in options: loading the sign-in page many times locks nobody out', async () => {
    const user = await signupConfirmed(limited, { dataDir: limited.dataDir })
    const authenticator = new SoftAuthenticator()
    const { passkey } = await registerPasskey(limited, user, authenticator)
    const device = await newDevice(limited, { ip: '203.0.113.78' })
    // three times the IP's whole login budget of page loads, each asking for options for autofill
    for (let i = 0; i < 30; i++) expect((await loginOptionsResponse(limited, device)).status).toBe(200)
    const wrong = await call(limited, 'POST', '/login', { client: device, body: { email: user.email, password: 'not the password at all' } })
    expect(wrong.status).toBe(401)
    const signedIn = await loginVerify(limited, device, authenticator.assert(await loginOptions(limited, device), passkey))
    expect(signedIn.status).toBe(200)
  })

  it('bounds sign-in options per IP with a limiter of their own (rate_limiters.passkeyOptions)', async () => {
    const device = await newDevice(limited, { ip: '203.0.113.79' })
    for (let i = 0; i < 40; i++) expect((await loginOptionsResponse(limited, device)).status).toBe(200)
    const over = await loginOptionsResponse(limited, device)
    expect(over.status).toBe(429)
    expect(over.headers.get('retry-after')).toEqual(expect.any(String))
    // the sign-in itself is not blocked by it
    const login = await call(limited, 'POST', '/login', { client: device, body: { email: 'someone@example.com', password: 'whatever it is' } })
    expect(login.status).toBe(401)
  })
})

describe('challenge lifetime', () => {
  let short: IamServer
  beforeAll(async () => {
    // the IAM's clock is moved past the challenge's life: no wall-clock wait, nothing a loaded machine can race
    short = await startIam({ config: { ...PROXY_CONFIG, ...WIDE_LOGIN, passkeys: { challengeTtlMs: 60_000 } }, env: CLOCK_ENV })
  }, 180_000)
  afterAll(async () => {
    await short?.stop()
  })

  it('refuses a sign-in challenge past its life', async () => {
    const user = await signupConfirmed(short, { dataDir: short.dataDir })
    const authenticator = new SoftAuthenticator()
    const device = await newDevice(short)
    const { passkey, credential } = authenticator.register(await registerOptions(short, user))
    expect((await registerVerify(short, user, credential)).status).toBe(200)
    const options = await loginOptions(short, device)
    await advanceClock(short, 60_001)
    expect((await loginVerify(short, device, authenticator.assert(options, passkey))).status).toBe(401)
  })
})
