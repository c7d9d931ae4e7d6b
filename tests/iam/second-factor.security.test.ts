import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, newDevice, PROXY_CONFIG, uniqueEmail } from '../helpers/accounts'
import { startIam, type IamServer, type Json } from '../helpers/iam-server'
import { signupConfirmed } from '../helpers/confirm-email'
import { sharedIam, sharedSmtp } from '../helpers/shared-iam'
import { connectDatabase, migratedPgliteDir } from '../helpers/test-database'
import { authed, enrolTotp, passwordStep, secondFactor, sessionOf, totpCode, WIDE_LOGIN } from './second-factor-http'

// the run's shared IAM (proxy trust, wide sign-up and sign-in limits); the challenge lifetime and
// the sealing keys below start IAMs of their own
const iam = sharedIam()
const mails = sharedSmtp()

const withoutDate = (body: Json) => ({ ...body, date: undefined })

describe('each TOTP code is accepted once', () => {
  it('refuses a code replayed in the same 30 s window, and an older step after a newer one', async () => {
    const user = await signupConfirmed(iam, mails)
    const { secret } = await enrolTotp(iam, user)
    const device = await newDevice(iam)
    const next = totpCode(secret, 1)
    expect((await secondFactor(iam, device, await passwordStep(iam, user, device), next)).status).toBe(200)
    const replay = await secondFactor(iam, device, await passwordStep(iam, user, device), next)
    expect(replay.status).toBe(401)
    expect(await replay.json()).toEqual({ ok: false, date: expect.any(String), error: 'Invalid code', code: 'code_invalid' })
    // the enrolment's step is older than the one just taken
    expect((await secondFactor(iam, device, await passwordStep(iam, user, device), totpCode(secret))).status).toBe(401)
  })

  // A new sign-in challenge ends the older ones, so the parallel submissions go to one challenge
  // (up to its 5 attempts) and to re-authentication, the other route that takes the same codes.
  // Past the account's failure budget some are refused with 429 before the code is looked at.
  const submitEverywhere = async (user: Awaited<ReturnType<typeof signupConfirmed>>, code: string) => {
    const device = await newDevice(iam)
    const challenge = await passwordStep(iam, user, device)
    return Promise.all([
      ...Array.from({ length: 5 }, async () => (await secondFactor(iam, device, challenge, code)).status),
      ...Array.from({ length: 15 }, async () => (await authed(iam, user, 'POST', '/auth/reauthenticate', { code })).status),
    ])
  }

  it('gives one success to 20 parallel submissions of one TOTP code', async () => {
    const user = await signupConfirmed(iam, mails)
    const { secret } = await enrolTotp(iam, user)
    const statuses = await submitEverywhere(user, totpCode(secret, 1))
    expect(statuses.filter((s) => s === 200)).toHaveLength(1)
    expect(statuses.filter((s) => s === 401 || s === 429)).toHaveLength(19)
  })

  it('gives one success to 20 parallel submissions of one recovery code', async () => {
    const user = await signupConfirmed(iam, mails)
    const { recoveryCodes } = await enrolTotp(iam, user)
    const statuses = await submitEverywhere(user, recoveryCodes[0]!)
    expect(statuses.filter((s) => s === 200)).toHaveLength(1)
    expect(statuses.filter((s) => s === 401 || s === 429)).toHaveLength(19)
  })
})

describe('the sign-in challenge', () => {
  it('is bound to the device it was issued to', async () => {
    const user = await signupConfirmed(iam, mails)
    const { secret } = await enrolTotp(iam, user)
    const device = await newDevice(iam)
    const other = await newDevice(iam)
    const challenge = await passwordStep(iam, user, device)
    const res = await secondFactor(iam, other, challenge, totpCode(secret, 1))
    expect(res.status).toBe(401)
    expect(await res.json()).toEqual({ ok: false, date: expect.any(String), error: 'This sign-in step has ended; sign in again', code: 'sign_in_expired', restart: true })
    // the other device spent nothing: neither the code nor an attempt
    expect((await secondFactor(iam, device, challenge, totpCode(secret, 1))).status).toBe(200)
  })

  it('requires the canary_id cookie', async () => {
    const user = await signupConfirmed(iam, mails)
    const { secret } = await enrolTotp(iam, user)
    const device = await newDevice(iam)
    const challenge = await passwordStep(iam, user, device)
    const res = await secondFactor(iam, { ...device, canary: undefined }, challenge, totpCode(secret, 1))
    expect(res.status).toBe(400)
  })

  it('stops after 5 attempts, even for the right code', async () => {
    const user = await signupConfirmed(iam, mails)
    const { secret } = await enrolTotp(iam, user)
    const device = await newDevice(iam)
    const challenge = await passwordStep(iam, user, device)
    for (let i = 0; i < 5; i++) expect((await secondFactor(iam, device, challenge, 'ZZZZ-ZZZZ-ZZZZ-ZZZZ')).status).toBe(401)
    const res = await secondFactor(iam, device, challenge, totpCode(secret, 1))
    expect(res.status).toBe(401)
    expect(((await res.json()) as Json).restart).toBe(true)
  })

  it('is single use', async () => {
    const user = await signupConfirmed(iam, mails)
    const { secret, recoveryCodes } = await enrolTotp(iam, user)
    const device = await newDevice(iam)
    const challenge = await passwordStep(iam, user, device)
    expect((await secondFactor(iam, device, challenge, totpCode(secret, 1))).status).toBe(200)
    const again = await secondFactor(iam, device, challenge, recoveryCodes[0]!)
    expect(again.status).toBe(401)
    expect(((await again.json()) as Json).restart).toBe(true)
  })

  it('refuses malformed input with 400 before any lookup', async () => {
    const device = await newDevice(iam)
    for (const body of [{}, { challenge: 'x', code: '123456' }, { challenge: 'A'.repeat(43), code: '12' }, { challenge: 'A'.repeat(43), code: 'x'.repeat(40) }]) {
      expect((await call(iam, 'POST', '/auth/second-factor', { client: device, body })).status).toBe(400)
    }
  })
})

describe('no leak of second-factor status before the password is right', () => {
  it('answers a wrong password alike for accounts with and without TOTP and for unknown addresses', async () => {
    const plain = await signupConfirmed(iam, mails)
    const guarded = await signupConfirmed(iam, mails)
    await enrolTotp(iam, guarded)
    const device = await newDevice(iam)
    const answers = []
    for (const email of [plain.email, guarded.email, uniqueEmail('nobody')]) {
      const res = await call(iam, 'POST', '/login', { client: device, body: { email, password: 'not the password 123' } })
      answers.push({ status: res.status, body: withoutDate((await res.json()) as Json), cookies: res.headers.getSetCookie().map((c) => c.split('=')[0]) })
    }
    expect(answers[0]).toEqual({ status: 401, body: { ok: false, date: undefined, error: 'Invalid email or password', code: 'invalid_credentials' }, cookies: [] })
    expect(answers[1]).toEqual(answers[0])
    expect(answers[2]).toEqual(answers[0])
  })
})

describe('challenge lifetime', () => {
  let short: IamServer
  beforeAll(async () => {
    // the clock cannot be moved yet: a 50 ms life stands in for 5 minutes
    short = await startIam({ config: { ...PROXY_CONFIG, ...WIDE_LOGIN, secondFactor: { challengeTtlMs: 50 } } })
  }, 180_000)
  afterAll(async () => {
    await short?.stop()
  })

  it('refuses a challenge past its life', async () => {
    const user = await signupConfirmed(short, { dataDir: short.dataDir })
    const { secret } = await enrolTotp(short, user)
    const device = await newDevice(short)
    const challenge = await passwordStep(short, user, device)
    await new Promise((resolve) => setTimeout(resolve, 100))
    const res = await secondFactor(short, device, challenge, totpCode(secret, 1))
    expect(res.status).toBe(401)
    expect(((await res.json()) as Json).restart).toBe(true)
  })
})

describe('TOTP secrets at rest', () => {
  const keyA = { id: 'a2026', key: randomBytes(32).toString('base64url') }
  const keyB = { id: 'b2027', key: randomBytes(32).toString('base64url') }

  it('stores the secret sealed under the first key, and still opens it after a new key is put first', async () => {
    // PGlite lives inside one process: on the embedded profile the two instances run one after the
    // other on one database directory; on PostgreSQL the second shares the first's database
    const dir = process.env.DATABASE_URL ? undefined : mkdtempSync(join(tmpdir(), 'totp-keys-'))
    const database = dir ? { database: { url: migratedPgliteDir(join(dir, 'db')) } } : {}
    const first = await startIam({ config: { ...PROXY_CONFIG, ...WIDE_LOGIN, ...database, secrets: { totpKeys: [keyA] } } })
    let second: IamServer | undefined
    try {
      const user = await signupConfirmed(first, { dataDir: first.dataDir })
      const { secret } = await enrolTotp(first, user)
      const share = dir ? { databaseUrl: `file://${join(dir, 'db')}`, storagePrefix: first.share.storagePrefix } : first.share
      if (dir) await first.stop()
      const db = await connectDatabase(share.databaseUrl)
      try {
        const row = await db.selectFrom('totp_factors as t').innerJoin('users as u', 'u.id', 't.user_id').select('t.secret_sealed').where('u.email', '=', user.email).executeTakeFirstOrThrow()
        expect(row.secret_sealed.startsWith(`${keyA.id}.`)).toBe(true)
        expect(row.secret_sealed).not.toContain(secret)
        expect(Buffer.from(row.secret_sealed.split('.').pop()!, 'base64url').toString('latin1')).not.toContain(secret)
      } finally {
        await db.destroy()
      }
      second = await startIam({ share, config: { ...PROXY_CONFIG, ...WIDE_LOGIN, secrets: { totpKeys: [keyB, keyA] } } })
      const device = await newDevice(second)
      const session = await sessionOf(await secondFactor(second, device, await passwordStep(second, user, device), totpCode(secret, 1)), user, device)
      expect(session.accessToken).toEqual(expect.any(String))
      // a new enrolment is sealed under the new first key
      const other = await signupConfirmed(second, { dataDir: second.dataDir })
      await enrolTotp(second, other)
      if (!dir) {
        const check = await connectDatabase(share.databaseUrl)
        try {
          const row = await check.selectFrom('totp_factors as t').innerJoin('users as u', 'u.id', 't.user_id').select('t.secret_sealed').where('u.email', '=', other.email).executeTakeFirstOrThrow()
          expect(row.secret_sealed.startsWith(`${keyB.id}.`)).toBe(true)
        } finally {
          await check.destroy()
        }
      }
    } finally {
      await second?.stop()
      if (!dir) await first.stop()
      if (dir) rmSync(dir, { recursive: true, force: true })
    }
  }, 240_000)
})
