/**
 * What an imported hash may cost to verify (imported-hash-caps.ts): each parameter at its cap is taken and one past it refused at import,
 * the reason naming the parameter; a stored hash past the caps (imported before them) is a wrong
 * password, never computed, and told to the hasher's error callback once.
 */
import { pbkdf2Sync, randomBytes } from 'node:crypto'
import { hash as argon2Hash } from '@node-rs/argon2'
import bcrypt from 'bcryptjs'
import { describe, expect, it } from 'vitest'
import { createPasswordHasher } from '../../iam/features/passwords/hasher'
import { IMPORTED_HASH_CAPS } from '../../iam/features/passwords/imported-hash-caps'
import { ImportedHashRefused, parseImportedHash, verifyImportedHash } from '../../iam/features/passwords/imported-hashes'
import { checkImportLine } from '../../iam/features/users/import-users'

const low = { memoryCost: 8192, timeCost: 1, parallelism: 1 }
/** unpadded base64, as PHC strings carry it */
const b64 = (bytes: Buffer) => bytes.toString('base64').replace(/=+$/, '')
const bytes = (n: number) => b64(Buffer.alloc(n, 7))
const SALT = bytes(16)
/** a bcrypt string of `cost` (shape only: 53 characters of salt and hash) */
const bcryptOf = (cost: number) => `$2b$${String(cost).padStart(2, '0')}$${'a'.repeat(53)}`
const pbkdf2Of = (i: number, length = 32, id = 'pbkdf2-sha256') => `$${id}$i=${i}$${SALT}$${bytes(length)}`
const argon2Of = (m: number, t: number, p: number, length = 32) => `$argon2id$v=19$m=${m},t=${t},p=${p}$${SALT}$${bytes(length)}`
const scryptOf = (ln: number, r: number, p: number, length = 64) => `$scrypt$ln=${ln},r=${r},p=${p}$${SALT}$${bytes(length)}`
const reasonOf = (input: unknown) => {
  const parsed = parseImportedHash(input)
  return parsed.ok ? null : parsed.reason
}

describe('the caps on an imported hash, at import', () => {
  it('are the ones docs/import.md states', () => {
    expect(IMPORTED_HASH_CAPS).toEqual({
      bcryptCost: 13,
      pbkdf2Iterations: 2_000_000,
      hashBytes: 64,
      argon2MemoryKib: 262_144,
      argon2MemoryPasses: 1_048_576,
      argon2Parallelism: 16,
      scryptLogN: 20,
      scryptR: 32,
      scryptP: 16,
      scryptWorkBytes: 256 * 1024 * 1024,
    })
  })

  it('bcrypt: cost 13 is taken, 14 and 16 are refused naming the cost', () => {
    expect(parseImportedHash(bcryptOf(13))).toMatchObject({ ok: true, format: 'bcrypt' })
    expect(reasonOf(bcryptOf(14))).toBe('bcrypt cost is 14, over its cap of 13')
    expect(reasonOf(bcryptOf(16))).toBe('bcrypt cost is 16, over its cap of 13')
  })

  it('pbkdf2: the derived key is at most 64 bytes and i at most 2,000,000', () => {
    expect(parseImportedHash(pbkdf2Of(2_000_000, 64))).toMatchObject({ ok: true, format: 'pbkdf2' })
    expect(parseImportedHash(pbkdf2Of(1000, 64, 'pbkdf2-sha512'))).toMatchObject({ ok: true })
    expect(reasonOf(pbkdf2Of(1000, 65))).toBe('pbkdf2 hash length is 65 bytes, over its cap of 64 bytes')
    expect(reasonOf(pbkdf2Of(1000, 1024))).toBe('pbkdf2 hash length is 1024 bytes, over its cap of 64 bytes')
    expect(reasonOf(pbkdf2Of(2_000_001))).toBe('pbkdf2 i is 2000001, over its cap of 2000000')
    // a Keycloak credential becomes the same PHC string, with the same caps
    const keycloak = (value: Buffer, iterations = 27_500) => ({
      format: 'keycloak',
      credentialData: JSON.stringify({ algorithm: 'pbkdf2-sha256', hashIterations: iterations }),
      secretData: JSON.stringify({ salt: Buffer.alloc(16, 1).toString('base64'), value: value.toString('base64') }),
    })
    expect(parseImportedHash(keycloak(Buffer.alloc(64, 2)))).toMatchObject({ ok: true, format: 'keycloak-pbkdf2' })
    expect(reasonOf(keycloak(Buffer.alloc(1024, 2)))).toBe('pbkdf2 hash length is 1024 bytes, over its cap of 64 bytes')
    expect(reasonOf(keycloak(Buffer.alloc(64, 2), 5_000_000))).toBe('pbkdf2 i is 5000000, over its cap of 2000000')
  })

  it('argon2: p at most 16, m at most 256 MiB, m × t at most 1 GiB·pass, a tag of at most 64 bytes', () => {
    for (const ok of [argon2Of(65_536, 3, 4), argon2Of(262_144, 4, 16), argon2Of(1_048_576 / 16, 16, 1, 64)]) expect(parseImportedHash(ok), ok).toMatchObject({ ok: true, format: 'argon2' })
    expect(reasonOf(argon2Of(65_536, 3, 17))).toBe('argon2 p is 17, over its cap of 16')
    expect(reasonOf(argon2Of(65_536, 3, 255))).toBe('argon2 p is 255, over its cap of 16')
    expect(reasonOf(argon2Of(262_145, 1, 1))).toBe('argon2 m is 262145 KiB, over its cap of 262144 KiB')
    expect(reasonOf(argon2Of(262_144, 5, 1))).toBe('argon2 m×t is 1310720 KiB, over its cap of 1048576 KiB')
    expect(reasonOf(argon2Of(65_536, 3, 4, 65))).toBe('argon2 hash length is 65 bytes, over its cap of 64 bytes')
  })

  it('scrypt: 128·N·r·p at most 256 MiB, p at most 16, a key of at most 64 bytes', () => {
    expect(parseImportedHash(scryptOf(18, 8, 1))).toMatchObject({ ok: true, format: 'scrypt' })
    expect(parseImportedHash(scryptOf(14, 8, 16))).toMatchObject({ ok: true })
    expect(reasonOf(scryptOf(18, 8, 2))).toBe('scrypt 128·N·r·p is 536870912 bytes, over its cap of 268435456 bytes')
    expect(reasonOf(scryptOf(10, 8, 17))).toBe('scrypt p is 17, over its cap of 16')
    expect(reasonOf(scryptOf(21, 1, 1))).toBe('scrypt ln is 21, over its cap of 20')
    expect(reasonOf(scryptOf(14, 8, 1, 65))).toBe('scrypt hash length is 65 bytes, over its cap of 64 bytes')
  })

  it('an import line past a cap is refused with the parameter in its reason', () => {
    const now = new Date('2026-06-01T00:00:00.000Z')
    expect(checkImportLine(JSON.stringify({ email: 'a@example.com', passwordHash: argon2Of(4096, 1, 255) }), 3, now)).toEqual({
      ok: false,
      reason: 'passwordHash: argon2 p is 255, over its cap of 16',
    })
  })
})

describe('a stored imported hash past the caps', () => {
  const password = 'the right password'
  const salt = randomBytes(16)
  const stored = {
    // each verifies `password` with its own algorithm: past a cap, it is still never computed
    pbkdf2: `import:pbkdf2:$pbkdf2-sha256$i=1000$${b64(salt)}$${b64(pbkdf2Sync(password, salt, 1000, 1024, 'sha256'))}`,
    argon2: async () => `import:argon2:${await argon2Hash(password, { memoryCost: 2048, timeCost: 1, parallelism: 255 })}`,
    bcrypt: `import:bcrypt:${bcrypt.hashSync(password, 4).replace(/^\$2b\$04\$/, '$2b$14$')}`,
  }

  it('is refused without being computed: ImportedHashRefused, over_cap, naming the parameter', async () => {
    for (const [hash, parameter, value] of [
      [stored.pbkdf2, 'hash length', 1024],
      [await stored.argon2(), 'p', 255],
      [stored.bcrypt, 'cost', 14],
    ] as const) {
      const error = await verifyImportedHash(hash, password, {}).then(
        () => null,
        (e: unknown) => e,
      )
      expect(error, hash).toBeInstanceOf(ImportedHashRefused)
      expect(error).toMatchObject({ reason: 'over_cap', fields: { parameter, value } })
      expect((error as Error).message).not.toContain(hash.slice(20))
    }
  })

  it('is a wrong password to the hasher, told to its error callback once per hash', async () => {
    const told: Error[] = []
    const hasher = createPasswordHasher(low, undefined, {}, (error) => told.push(error))
    const argon2 = await stored.argon2()
    for (let round = 0; round < 3; round++) {
      expect(await hasher.verify(stored.pbkdf2, password)).toEqual({ ok: false, needsRehash: false })
      expect(await hasher.verify(argon2, password)).toEqual({ ok: false, needsRehash: false })
    }
    expect(told.map((e) => (e as ImportedHashRefused).fields)).toEqual([
      { kind: 'pbkdf2', parameter: 'hash length', value: 1024, cap: 64, unit: 'bytes' },
      { kind: 'argon2', parameter: 'p', value: 255, cap: 16 },
    ])
  })
})
