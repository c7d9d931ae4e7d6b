/**
 * passlib's PBKDF2 form (features/passwords/passlib-pbkdf2.ts, imported-hashes.ts), and PBKDF2 with
 * HMAC-SHA1 as passlib and Keycloak store it: vectors made
 * here with node:crypto and written in passlib's adapted base64, and one made by passlib 1.7.4
 * itself, each stored as the PHC pbkdf2 string of the same bytes (nothing recomputed), verified
 * with the right password and not another; malformed strings and costs past the caps are refused
 * with a reason that names what is wrong.
 */
import { pbkdf2Sync } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { createPasswordHasher } from '../../iam/features/passwords/hasher'
import { parseImportedHash, verifyImportedHash } from '../../iam/features/passwords/imported-hashes'
import { isPasslibPbkdf2, parsePasslibPbkdf2 } from '../../iam/features/passwords/passlib-pbkdf2'

const low = { memoryCost: 8192, timeCost: 1, parallelism: 1 }
/** passlib's adapted base64: the standard alphabet with `.` for `+`, no padding */
const ab64 = (bytes: Buffer) => bytes.toString('base64').replace(/=+$/, '').replace(/\+/g, '.')
/** unpadded standard base64, as the PHC string carries it */
const b64 = (bytes: Buffer) => bytes.toString('base64').replace(/=+$/, '')

const DIGESTS = [
  { digest: 'sha1', ident: '$pbkdf2$', bytes: 20 },
  { digest: 'sha256', ident: '$pbkdf2-sha256$', bytes: 32 },
  { digest: 'sha512', ident: '$pbkdf2-sha512$', bytes: 64 },
] as const
// fb ef be at the start of a 3-byte group is `++++` in base64: `....` in passlib's alphabet
const SALT = Buffer.from('fbefbe000102030405060708090a0b0c', 'hex')

/** A passlib PBKDF2 hash of `password`, made with node:crypto. */
function passlibHash(digest: 'sha1' | 'sha256' | 'sha512', password: string, rounds: number, salt = SALT): string {
  const { ident, bytes } = DIGESTS.find((d) => d.digest === digest)!
  return `${ident}${rounds}$${ab64(salt)}$${ab64(pbkdf2Sync(password, salt, rounds, bytes, digest))}`
}

const reasonOf = (hash: string) => {
  const parsed = parseImportedHash(hash)
  return parsed.ok ? null : parsed.reason
}

describe('passlib PBKDF2 hashes', () => {
  for (const { digest, bytes } of DIGESTS) {
    it(`pbkdf2_${digest}: stored as the PHC string of the same bytes, the right password verifies and another does not`, async () => {
      const password = `passlib ${digest} pässword`
      const hash = passlibHash(digest, password, 1000)
      expect(hash.split('$').at(-2)).toContain('....')
      const parsed = parseImportedHash(hash)
      if (!parsed.ok) throw new Error(parsed.reason)
      const checksum = pbkdf2Sync(password, SALT, 1000, bytes, digest)
      expect(parsed).toEqual({ ok: true, format: 'passlib-pbkdf2', stored: `import:pbkdf2:$pbkdf2-${digest}$i=1000$${b64(SALT)}$${b64(checksum)}` })
      expect(await verifyImportedHash(parsed.stored, password, {})).toBe(true)
      expect(await verifyImportedHash(parsed.stored, `${password}x`, {})).toBe(false)
      const hasher = createPasswordHasher(low, 'p'.repeat(32))
      expect(await hasher.verify(parsed.stored, password)).toEqual({ ok: true, needsRehash: true })
    })
  }

  it('verifies a hash made by passlib 1.7.4 itself (its own random salt, default rounds)', async () => {
    // python3 -c "from passlib.hash import pbkdf2_sha256; print(pbkdf2_sha256.hash('correct horse battery staple'))"
    const made = '$pbkdf2-sha256$29000$/d8bIwSAUCplLEWIEYIQgg$c169fIV4lR1JTdQplpA5OXdgrAIkI8E1.1oj3WE74zE'
    const parsed = parseImportedHash(made)
    if (!parsed.ok) throw new Error(parsed.reason)
    expect(parsed.stored).toBe('import:pbkdf2:$pbkdf2-sha256$i=29000$/d8bIwSAUCplLEWIEYIQgg$c169fIV4lR1JTdQplpA5OXdgrAIkI8E1+1oj3WE74zE')
    expect(await verifyImportedHash(parsed.stored, 'correct horse battery staple', {})).toBe(true)
    expect(await verifyImportedHash(parsed.stored, 'correct horse battery stapler', {})).toBe(false)
    // node:crypto over the same salt and rounds writes passlib's checksum
    const salt = Buffer.from('/d8bIwSAUCplLEWIEYIQgg', 'base64')
    expect(passlibHash('sha256', 'correct horse battery staple', 29000, salt)).toBe(made)
  })

  it('tells the two forms apart by the rounds field: PHC strings keep their own path', () => {
    expect(isPasslibPbkdf2('$pbkdf2-sha256$29000$c2FsdA$aGFzaA')).toBe(true)
    expect(isPasslibPbkdf2('$pbkdf2$131000$c2FsdA$aGFzaA')).toBe(true)
    expect(isPasslibPbkdf2('$pbkdf2-sha256$i=29000$c2FsdA$aGFzaA')).toBe(false)
    expect(isPasslibPbkdf2('$pbkdf2-sha1$i=29000$c2FsdA$aGFzaA')).toBe(false)
    expect(isPasslibPbkdf2('$2b$10$abc')).toBe(false)
    // the PHC form of SHA-1 is taken too, the form the passlib one is stored in
    const phc = `$pbkdf2-sha1$i=1000$${b64(SALT)}$${b64(pbkdf2Sync('pw', SALT, 1000, 20, 'sha1'))}`
    expect(parseImportedHash(phc)).toEqual({ ok: true, format: 'pbkdf2', stored: `import:pbkdf2:${phc}` })
  })

  it('a Keycloak pbkdf2 (HMAC-SHA1) credential is taken as the same PHC pbkdf2-sha1 string, and verifies', async () => {
    // Keycloak's legacy provider: PBKDF2WithHmacSHA1, a 512-bit derived key
    const value = pbkdf2Sync('keycloak sha1 password', SALT, 20_000, 64, 'sha1')
    const parsed = parseImportedHash({
      format: 'keycloak',
      credentialData: JSON.stringify({ hashIterations: 20_000, algorithm: 'pbkdf2', additionalParameters: {} }),
      secretData: JSON.stringify({ value: value.toString('base64'), salt: SALT.toString('base64'), additionalParameters: {} }),
    })
    expect(parsed).toEqual({ ok: true, format: 'keycloak-pbkdf2', stored: `import:pbkdf2:$pbkdf2-sha1$i=20000$${b64(SALT)}$${b64(value)}` })
    if (!parsed.ok) return
    expect(await verifyImportedHash(parsed.stored, 'keycloak sha1 password', {})).toBe(true)
    expect(await verifyImportedHash(parsed.stored, 'keycloak sha1 passwort', {})).toBe(false)
  })

  it('refuses rounds that are not a positive decimal number without leading zeros', () => {
    const good = passlibHash('sha256', 'pw', 1000)
    const withRounds = (rounds: string) => good.replace('$1000$', () => `$${rounds}$`)
    const reason = 'passlib pbkdf2-sha256 rounds must be a positive decimal number without leading zeros'
    for (const rounds of ['abc', '1e3', '0x3e8', '01000', '0', '-1', '', ' 1000', '1000.0']) expect(reasonOf(withRounds(rounds)), rounds).toBe(reason)
    expect(reasonOf(withRounds('99999999999'))).toBe("passlib pbkdf2-sha256 rounds are past passlib's maximum of 4294967295")
  })

  it('refuses a salt or checksum outside adapted base64', () => {
    const [, , rounds, salt, checksum] = passlibHash('sha256', 'pw', 1000).split('$') as string[]
    const hash = (s: string, c: string) => `$pbkdf2-sha256$${rounds}$${s}$${c}`
    const badSalt = 'passlib pbkdf2-sha256 salt is not adapted base64 (A-Z a-z 0-9 . /, no padding)'
    const badChecksum = 'passlib pbkdf2-sha256 checksum is not adapted base64 (A-Z a-z 0-9 . /, no padding)'
    expect(reasonOf(hash(`${salt}==`, checksum!))).toBe(badSalt)
    expect(reasonOf(hash(salt!.replace(/\./g, '-'), checksum!))).toBe(badSalt)
    expect(reasonOf(hash(`${salt}_`, checksum!))).toBe(badSalt)
    expect(reasonOf(hash('abcde', checksum!))).toBe(badSalt)
    expect(reasonOf(hash(salt!, `${checksum}=`))).toBe(badChecksum)
    expect(reasonOf(hash(salt!, `${checksum!.slice(0, -1)}!`))).toBe(badChecksum)
    expect(reasonOf(hash('', checksum!))).toBe('passlib pbkdf2-sha256 has no salt')
    expect(reasonOf(`$pbkdf2-sha256$${rounds}$${salt}`)).toBe('passlib pbkdf2-sha256 needs rounds, salt and checksum: $pbkdf2-sha256$<rounds>$<salt>$<checksum>')
    expect(reasonOf(`$pbkdf2-sha256$${rounds}$${salt}$${checksum}$x`)).toMatch(/needs rounds, salt and checksum/)
  })

  it('refuses a checksum that is not the digest size', () => {
    const sha256 = passlibHash('sha256', 'pw', 1000)
    const [, , rounds, salt] = sha256.split('$') as string[]
    expect(reasonOf(`$pbkdf2-sha256$${rounds}$${salt}$${ab64(Buffer.alloc(20, 1))}`)).toBe('passlib pbkdf2-sha256 checksum is 20 bytes; sha256 makes 32')
    expect(reasonOf(`$pbkdf2-sha512$${rounds}$${salt}$${ab64(Buffer.alloc(32, 1))}`)).toBe('passlib pbkdf2-sha512 checksum is 32 bytes; sha512 makes 64')
    expect(reasonOf(`$pbkdf2$${rounds}$${salt}$${ab64(Buffer.alloc(32, 1))}`)).toBe('passlib pbkdf2 checksum is 32 bytes; sha1 makes 20')
    expect(reasonOf(`$pbkdf2-sha256$${rounds}$${ab64(Buffer.alloc(1025, 1))}$${ab64(Buffer.alloc(32, 1))}`)).toBe("passlib pbkdf2-sha256 salt is 1025 bytes, past passlib's maximum of 1024")
  })

  it('checks the rounds against the PBKDF2 iteration cap, naming them rounds', () => {
    const shaped = (rounds: number) => `$pbkdf2-sha512$${rounds}$${ab64(SALT)}$${ab64(Buffer.alloc(64, 3))}`
    expect(parseImportedHash(shaped(2_000_000))).toMatchObject({ ok: true, format: 'passlib-pbkdf2' })
    expect(reasonOf(shaped(2_000_001))).toBe('pbkdf2 rounds is 2000001, over its cap of 2000000')
    expect(parsePasslibPbkdf2(shaped(4_294_967_295))).toMatchObject({ ok: true, rounds: 4_294_967_295 })
  })
})
