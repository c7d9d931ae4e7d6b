import { createServer, type Server } from 'node:http'
import { createHash } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { checkBreachedPassword } from '../../iam/features/passwords/breach-check'
import { createPasswordHasher } from '../../iam/features/passwords/hasher'
import { checkPasswordPolicy } from '../../iam/features/passwords/policy'
import { startRangeServer, type RangeServer } from '../helpers/range-server'

const low = { memoryCost: 8192, timeCost: 1, parallelism: 1 }
const policy = { minLength: 12, maxLength: 128 }

describe('password policy', () => {
  it('accepts 12 to 128 characters with no composition rules', () => {
    expect(checkPasswordPolicy('a'.repeat(12), null, policy)).toEqual({ ok: true })
    expect(checkPasswordPolicy('a'.repeat(11), null, policy).ok).toBe(false)
    expect(checkPasswordPolicy('a'.repeat(129), null, policy).ok).toBe(false)
  })
  it('counts code points after NFKC, not UTF-16 units', () => {
    // 12 emoji = 24 UTF-16 units but 12 characters
    expect(checkPasswordPolicy('😀'.repeat(12), null, policy)).toEqual({ ok: true })
    expect(checkPasswordPolicy('😀'.repeat(11), null, policy).ok).toBe(false)
  })
  it('refuses the email address as the password, in any case', () => {
    expect(checkPasswordPolicy('Someone@Example.com', 'someone@example.com', policy)).toEqual({ ok: false, reason: 'Password must not be your email address' })
  })
})

describe('Argon2id hasher', () => {
  it('verifies the NFKC-equivalent spelling of a password', async () => {
    const hasher = createPasswordHasher(low)
    const stored = await hasher.hash('ｐａｓｓｗｏｒｄ-full-width')
    expect((await hasher.verify(stored, 'password-full-width')).ok).toBe(true)
    expect((await hasher.verify(stored, 'password-other')).ok).toBe(false)
    expect(stored.startsWith('$argon2id$')).toBe(true)
  })
  it('asks for a re-hash when the parameters changed', async () => {
    const old = createPasswordHasher(low)
    const stored = await old.hash('a long enough password')
    const stronger = createPasswordHasher({ ...low, timeCost: 2 })
    expect(await stronger.verify(stored, 'a long enough password')).toEqual({ ok: true, needsRehash: true })
    expect(await old.verify(stored, 'a long enough password')).toEqual({ ok: true, needsRehash: false })
  })
  it('binds hashes to the pepper', async () => {
    const peppered = createPasswordHasher(low, 'p'.repeat(32))
    const stored = await peppered.hash('a long enough password')
    expect((await createPasswordHasher(low).verify(stored, 'a long enough password')).ok).toBe(false)
    expect((await peppered.verify(stored, 'a long enough password')).ok).toBe(true)
  })
  it('costs exactly one Argon2 verification for an unknown account, like a known one', async () => {
    const hasher = createPasswordHasher(low)
    const stored = await hasher.hash('a long enough password')
    const before = hasher.verifications
    await hasher.verify(stored, 'wrong password here')
    expect(hasher.verifications - before).toBe(1)
    await hasher.verifyDummy('wrong password here')
    expect(hasher.verifications - before).toBe(2)
  })
  it('treats a malformed stored hash as a mismatch', async () => {
    expect(await createPasswordHasher(low).verify('not-a-hash', 'x')).toEqual({ ok: false, needsRehash: false })
  })
})

describe('breach check (k-anonymity range API)', () => {
  let range: RangeServer
  let down: Server
  let downUrl: string
  beforeAll(async () => {
    range = await startRangeServer(['password123456', 'correct horse battery staple'])
    down = createServer((_req, res) => {
      res.statusCode = 503
      res.end()
    })
    await new Promise<void>((r) => down.listen(0, '127.0.0.1', r))
    downUrl = `http://127.0.0.1:${(down.address() as { port: number }).port}/range/`
  })
  afterAll(async () => {
    await range?.stop()
    down?.close()
  })
  const settings = (url: string, failOpen = true) => ({ enabled: true, rangeApiUrl: url, failOpen, timeoutMs: 1000 })
  const warn = () => {}

  it('finds a breached password and sends only the 5-character prefix with Add-Padding', async () => {
    expect(await checkBreachedPassword('password123456', settings(range.url), warn)).toBe('breached')
    const prefix = createHash('sha1').update('password123456').digest('hex').slice(0, 5).toUpperCase()
    expect(range.requests.at(-1)).toEqual({ path: `/range/${prefix}`, padding: 'true' })
  })
  it('passes a password absent from the corpus (padding lines count 0)', async () => {
    expect(await checkBreachedPassword('a perfectly fresh passphrase 9317', settings(range.url), warn)).toBe('clean')
  })
  it('fails open or closed per config when the service is down', async () => {
    expect(await checkBreachedPassword('another fresh passphrase', settings(downUrl, true), warn)).toBe('clean')
    expect(await checkBreachedPassword('yet another passphrase', settings(downUrl, false), warn)).toBe('unavailable')
  })
})
