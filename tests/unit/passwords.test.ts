import { createServer } from 'node:http'
import { createHash } from 'node:crypto'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { breachCheckFailures, checkBreachedPassword, parseRangeBody, rangeUrl } from '../../iam/features/passwords/breach-check'
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
  let closedUrl: string
  beforeAll(async () => {
    range = await startRangeServer(['password123456', 'correct horse battery staple'])
    // a port that was just free: nothing listens there, so the connection is refused
    const probe = createServer()
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r))
    closedUrl = `http://127.0.0.1:${(probe.address() as { port: number }).port}/range/`
    await new Promise((r) => probe.close(r))
  })
  afterEach(() => range.misbehave(undefined))
  afterAll(async () => {
    await range?.stop()
  })
  const settings = (url: string, failOpen = true) => ({ enabled: true, rangeApiUrl: url, failOpen, timeoutMs: 1000 })
  const warn = () => {}
  let n = 0
  // a new password per call: the range cache must not answer for a prefix fetched before
  const fresh = () => `a perfectly fresh passphrase ${Date.now()} ${++n}`

  it('finds a breached password and sends only the 5-character prefix with Add-Padding', async () => {
    expect(await checkBreachedPassword('password123456', settings(range.url), warn)).toBe('breached')
    const prefix = createHash('sha1').update('password123456').digest('hex').slice(0, 5).toUpperCase()
    expect(range.requests.at(-1)).toEqual({ path: `/range/${prefix}`, padding: 'true' })
  })
  it('finds a breached password through a base URL without a trailing slash', async () => {
    expect(await checkBreachedPassword('correct horse battery staple', settings(range.url.replace(/\/$/, '')), warn)).toBe('breached')
    const prefix = createHash('sha1').update('correct horse battery staple').digest('hex').slice(0, 5).toUpperCase()
    expect(range.requests.at(-1)?.path).toBe(`/range/${prefix}`)
  })
  it('passes a password absent from the corpus (padding lines count 0)', async () => {
    expect(await checkBreachedPassword(fresh(), settings(range.url), warn)).toBe('clean')
  })
  it('fails open as unchecked (never clean) or closed per config when the service cannot be reached', async () => {
    expect(await checkBreachedPassword(fresh(), settings(closedUrl, true), warn)).toBe('unchecked')
    expect(await checkBreachedPassword(fresh(), settings(closedUrl, false), warn)).toBe('unavailable')
    range.misbehave('drop-connection')
    expect(await checkBreachedPassword(fresh(), settings(range.url, true), warn)).toBe('unchecked')
  })
  it('is unavailable, even with failOpen, when the service answers 404, 500 or a body not in the range format', async () => {
    for (const how of [{ status: 404 }, { status: 500 }, { status: 503 }, { status: 200, body: '<html>Sign in to the Wi-Fi</html>' }]) {
      range.misbehave(how)
      expect(await checkBreachedPassword(fresh(), settings(range.url, true), warn), JSON.stringify(how)).toBe('unavailable')
    }
  })
  it('counts every failure by kind and warns at most once per minute', async () => {
    const warnings: string[] = []
    const record = (msg: string) => warnings.push(msg)
    const before = { ...breachCheckFailures }
    const t0 = 4_000_000_000_000 // later than any Date.now() an earlier test used
    range.misbehave({ status: 500 })
    expect(await checkBreachedPassword(fresh(), settings(range.url), record, fetch, () => t0)).toBe('unavailable')
    expect(await checkBreachedPassword(fresh(), settings(range.url), record, fetch, () => t0 + 59_999)).toBe('unavailable')
    expect(await checkBreachedPassword(fresh(), settings(closedUrl), record, fetch, () => t0 + 59_999)).toBe('unchecked')
    expect(warnings).toEqual(['breach check failed: bad answer from the range API'])
    expect(await checkBreachedPassword(fresh(), settings(closedUrl), record, fetch, () => t0 + 60_000)).toBe('unchecked')
    expect(warnings).toEqual(['breach check failed: bad answer from the range API', 'breach check failed: range API unreachable'])
    expect(breachCheckFailures).toEqual({ badAnswer: before.badAnswer + 2, unreachable: before.unreachable + 2 })
  })
})

describe('range API answers', () => {
  it('queries <base>/<prefix> when rangeApiUrl has no trailing slash, and the same with one', () => {
    expect(rangeUrl('http://127.0.0.1:9000/range', 'ABCDE')).toBe('http://127.0.0.1:9000/range/ABCDE')
    expect(rangeUrl('http://127.0.0.1:9000/range/', 'ABCDE')).toBe('http://127.0.0.1:9000/range/ABCDE')
    expect(rangeUrl('https://api.pwnedpasswords.com/range/', '21BD1')).toBe('https://api.pwnedpasswords.com/range/21BD1')
  })
  it('queries <origin>/<prefix> for a bare origin and keeps a query string of the base', () => {
    expect(rangeUrl('http://range.test', 'ABCDE')).toBe('http://range.test/ABCDE')
    expect(rangeUrl('http://range.test/api/range?mode=ntlm', 'ABCDE')).toBe('http://range.test/api/range/ABCDE?mode=ntlm')
  })
  it('reads lines of <35 hex>:<count> and refuses anything else', () => {
    const suffix = 'A'.repeat(35)
    expect(parseRangeBody(`${suffix}:3\r\n${'b'.repeat(35)}:0\r\n`)).toEqual([{ suffix, count: 3 }, { suffix: 'B'.repeat(35), count: 0 }])
    expect(parseRangeBody('')).toEqual([])
    expect(parseRangeBody('<html></html>')).toBeNull()
    expect(parseRangeBody(`${suffix}:3\nnot a line`)).toBeNull()
    expect(parseRangeBody(`${'A'.repeat(34)}:3`)).toBeNull()
    expect(parseRangeBody(`${suffix}:-1`)).toBeNull()
  })
})
