/**
 * Imported password hashes (imported-hashes.ts) and the import of lines (import-users.ts): every
 * fixture of tests/fixtures/import verifies its password and refuses another, the hasher asks for
 * a rehash after any of them (also with a pepper, which imported hashes never had), bad hashes and
 * costly parameters are refused at import, and importUsers is idempotent, batched, reports bad
 * lines by number and writes nothing in a dry run (in-memory PGlite).
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Kysely } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Database } from '../../iam/db/schema'
import { createPasswordHasher } from '../../iam/features/passwords/hasher'
import { isImportedHash, parseImportedHash, verifyImportedHash, type FirebaseScryptParams } from '../../iam/features/passwords/imported-hashes'
import { checkImportLine, importUsers } from '../../iam/features/users/import-users'
import { configSchema } from '../../iam/lib/config-schema'
import { createMigratedDatabase } from '../helpers/test-database'

const FIXTURES = join(import.meta.dirname, '../fixtures/import')
const passwords = JSON.parse(readFileSync(join(FIXTURES, 'passwords.json'), 'utf8')) as Record<string, string>
const firebase = JSON.parse(readFileSync(join(FIXTURES, 'firebase-params.json'), 'utf8')) as FirebaseScryptParams
const linesOf = (file: string) => readFileSync(join(FIXTURES, file), 'utf8').split('\n')
const rowsOf = (file: string) =>
  linesOf(`${file}.jsonl`)
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { email: string; passwordHash: unknown })
const FORMATS = {
  bcrypt: 'bcrypt',
  argon2: 'argon2',
  scrypt: 'scrypt',
  'pbkdf2-sha256': 'pbkdf2',
  keycloak: 'keycloak-pbkdf2',
  'firebase-scrypt': 'firebase-scrypt',
  'passlib-pbkdf2': 'passlib-pbkdf2',
} as const
const low = { memoryCost: 8192, timeCost: 1, parallelism: 1 }

describe('imported password hashes', () => {
  for (const [file, format] of Object.entries(FORMATS)) {
    it(`${file}: the fixture's password verifies, another does not, and the hasher asks for a rehash`, async () => {
      const hasher = createPasswordHasher(low, 'p'.repeat(32), { firebase })
      for (const row of rowsOf(file)) {
        const parsed = parseImportedHash(row.passwordHash)
        if (!parsed.ok) throw new Error(`${row.email}: ${parsed.reason}`)
        expect(parsed.format).toBe(format)
        expect(isImportedHash(parsed.stored)).toBe(true)
        const password = passwords[row.email]!
        expect(await verifyImportedHash(parsed.stored, password, { firebase })).toBe(true)
        expect(await verifyImportedHash(parsed.stored, `${password}x`, { firebase })).toBe(false)
        expect(await hasher.verify(parsed.stored, password)).toEqual({ ok: true, needsRehash: true })
        expect(await hasher.verify(parsed.stored, 'not the password')).toEqual({ ok: false, needsRehash: false })
      }
    })
  }

  it('a Firebase hash without the project parameters is a non-match, told to the error callback', async () => {
    const parsed = parseImportedHash(rowsOf('firebase-scrypt')[0]!.passwordHash)
    if (!parsed.ok) throw new Error(parsed.reason)
    const errors: string[] = []
    const hasher = createPasswordHasher(low, undefined, {}, (error) => errors.push(error.message))
    expect(await hasher.verify(parsed.stored, 'user1password')).toEqual({ ok: false, needsRehash: false })
    expect(errors).toEqual(['import.firebase is not configured'])
  })

  it('our own Argon2id hashes are never taken for imported ones', async () => {
    const hasher = createPasswordHasher(low, 'p'.repeat(32))
    const ours = await hasher.hash('a long enough password')
    expect(isImportedHash(ours)).toBe(false)
    expect(await hasher.verify(ours, 'a long enough password')).toEqual({ ok: true, needsRehash: false })
    // an Argon2 string from elsewhere is verified without our pepper, as it was made
    expect(parseImportedHash(ours)).toMatchObject({ ok: true, format: 'argon2' })
  })

  it('refuses what it cannot verify, and parameters that would cost too much at a login', () => {
    const reasons = [
      '$md5$abc$def',
      '$2b$31$abcdefghijklmnopqrstuuC1w6QFIHd9oHdpGoxJML4mpUxbZAKg.',
      '$2b$10$short',
      '$argon2id$v=19$m=4194304,t=3,p=1$c29tZXNhbHQ$RdescudvJCsgt3ub+b+dWRWJTmaaJObG',
      '$scrypt$ln=24,r=8,p=1$c29tZXNhbHQ$RdescudvJCsgt3ub+b+dWRWJTmaaJObG',
      '$pbkdf2-sha256$i=50000000$c29tZXNhbHQ$RdescudvJCsgt3ub+b+dWRWJTmaaJObG',
      '$pbkdf2-md5$i=1000$c29tZXNhbHQ$RdescudvJCsgt3ub+b+dWRWJTmaaJObG',
      'plain text',
      { format: 'keycloak', credentialData: '{"algorithm":"argon2","hashIterations":1}', secretData: '{"salt":"c29tZQ==","value":"c29tZQ=="}' },
      { format: 'firebase-scrypt', hash: 'not base64!' },
      { format: 'md5' },
      42,
    ].map((input) => parseImportedHash(input))
    for (const result of reasons) expect(result.ok).toBe(false)
  })

  it('the config takes import.firebase and refuses a bad one', () => {
    expect(configSchema.parse({ import: { firebase } }).import.firebase).toEqual(firebase)
    expect(configSchema.parse({}).import).toEqual({})
    expect(configSchema.safeParse({ import: { firebase: { ...firebase, rounds: 0 } } }).success).toBe(false)
  })
})

describe('importUsers', () => {
  let db: Kysely<Database>
  const now = new Date('2026-06-01T00:00:00.000Z')
  // a migrated in-memory database takes seconds on a loaded machine: past the 10 s hook default
  beforeAll(async () => {
    db = await createMigratedDatabase(configSchema.parse({ database: { url: 'memory://' } }))
  }, 60_000)
  afterAll(() => db?.destroy())

  it('checks one line: fields, address, dates', () => {
    expect(checkImportLine('{"email":"A@Example.COM","name":" Ann ","createdAt":"2020-01-01T00:00:00Z"}', 1, now)).toMatchObject({
      ok: true,
      row: { email: 'A@example.com', name: 'Ann', passwordHash: null, format: 'none', createdAt: new Date('2020-01-01T00:00:00Z') },
    })
    expect(checkImportLine('[1]', 1, now)).toEqual({ ok: false, reason: 'not a JSON object' })
    expect(checkImportLine('{"email":"a@example.com","createdAt":"2999-01-01"}', 1, now)).toMatchObject({ ok: false })
    expect(checkImportLine('{"email":"a@example.com","emailVerified":"yes"}', 1, now)).toMatchObject({ ok: false })
  })

  it('checks the externalId of one line: a string of safe text, trimmed, 1 to 255 characters, compared as given', () => {
    const line = (externalId: unknown) => checkImportLine(JSON.stringify({ email: 'x@example.com', externalId }), 1, now)
    expect(line(' auth0|5f7c8ec7c33c6c004bbafe82 ')).toMatchObject({ ok: true, row: { externalId: 'auth0|5f7c8ec7c33c6c004bbafe82' } })
    expect(line(null)).toMatchObject({ ok: true, row: { externalId: null } })
    expect(checkImportLine('{"email":"x@example.com"}', 1, now)).toMatchObject({ ok: true, row: { externalId: null } })
    expect(line('Ünïcode-Ĭd')).toMatchObject({ ok: true, row: { externalId: 'Ünïcode-Ĭd' } })
    // 255 characters counted as PostgreSQL counts them (code points): 255 emoji are 510 UTF-16 units
    expect(line('😀'.repeat(255))).toMatchObject({ ok: true })
    expect(line('a'.repeat(255))).toMatchObject({ ok: true })
    expect(line('a'.repeat(256))).toEqual({ ok: false, reason: 'externalId is longer than 255 characters' })
    expect(line('😀'.repeat(256))).toEqual({ ok: false, reason: 'externalId is longer than 255 characters' })
    expect(line(42)).toEqual({ ok: false, reason: 'externalId must be a string' })
    expect(line({ id: 'x' })).toEqual({ ok: false, reason: 'externalId must be a string' })
    expect(line('   ')).toEqual({ ok: false, reason: 'externalId is empty' })
    expect(line('id\u0000x')).toEqual({ ok: false, reason: 'externalId has a control character or invalid Unicode' })
    expect(line('id\n')).toEqual({ ok: false, reason: 'externalId has a control character or invalid Unicode' })
    expect(checkImportLine('{"email":"x@example.com","externalId":"a\\ud800b"}', 1, now)).toEqual({ ok: false, reason: 'externalId has a control character or invalid Unicode' })
  })

  it('one external id names one account: another account or an earlier line holding it refuses the line; an existing account keeps its own', async () => {
    const lines = [
      JSON.stringify({ email: 'ext.one@example.com', externalId: 'src-1' }),
      JSON.stringify({ email: 'ext.two@example.com', externalId: 'src-2' }),
      JSON.stringify({ email: 'ext.three@example.com', externalId: 'src-1' }),
      JSON.stringify({ email: 'ext.four@example.com', externalId: 'SRC-1' }),
      JSON.stringify({ email: 'ext.five@example.com', externalId: 'x'.repeat(256) }),
    ]
    const first = await importUsers(db, lines, { dryRun: false, now, batchSize: 2 })
    expect(first).toMatchObject({ imported: 3, skipped: 0, invalid: 2 })
    expect(first.invalidLines).toEqual([
      { line: 3, reason: 'externalId is already on line 1' },
      { line: 5, reason: 'externalId is longer than 255 characters' },
    ])
    const again = [
      JSON.stringify({ email: 'ext.one@example.com', externalId: 'src-1' }),
      JSON.stringify({ email: 'EXT.TWO@example.com', externalId: 'src-2-renamed' }),
      JSON.stringify({ email: 'ext.six@example.com', externalId: 'src-2' }),
      JSON.stringify({ email: 'ext.seven@example.com', externalId: 'src-7' }),
      JSON.stringify({ email: 'ext.four@example.com' }),
    ]
    const dry = await importUsers(db, again, { dryRun: true, now, batchSize: 2 })
    const real = await importUsers(db, again, { dryRun: false, now, batchSize: 2 })
    expect({ ...real, dryRun: true }).toEqual(dry)
    expect(real).toMatchObject({ imported: 1, skipped: 3, invalid: 1 })
    expect(real.skippedLines).toEqual([
      { line: 1, email: 'ext.one@example.com', reason: 'account_exists' },
      { line: 2, email: 'EXT.TWO@example.com', reason: 'external_id_differs' },
      { line: 5, email: 'ext.four@example.com', reason: 'account_exists' },
    ])
    expect(real.invalidLines).toEqual([{ line: 3, reason: 'externalId already names another account' }])
    const stored = await db.selectFrom('users').select(['email', 'external_id']).where('email', 'like', 'ext.%').orderBy('id').execute()
    expect(stored).toEqual([
      { email: 'ext.one@example.com', external_id: 'src-1' },
      { email: 'ext.two@example.com', external_id: 'src-2' },
      { email: 'ext.four@example.com', external_id: 'SRC-1' },
      { email: 'ext.seven@example.com', external_id: 'src-7' },
    ])
  })

  it('a dry run writes nothing; the import is batched, idempotent and reports bad lines by number', async () => {
    const lines = [...linesOf('bad-lines.jsonl'), ...linesOf('bcrypt.jsonl'), ...linesOf('keycloak.jsonl')]
    const count = async () => Number((await db.selectFrom('users').select(db.fn.countAll().as('n')).executeTakeFirstOrThrow()).n)
    const before = await count()
    const dry = await importUsers(db, lines, { dryRun: true, now, batchSize: 2 })
    expect(dry).toMatchObject({ dryRun: true, imported: 7, skipped: 1, invalid: 5, formats: { none: 2, bcrypt: 3, 'keycloak-pbkdf2': 2 } })
    expect(await count()).toBe(before)

    const real = await importUsers(db, lines, { dryRun: false, now, batchSize: 2 })
    expect({ ...real, dryRun: true }).toEqual(dry)
    expect(real.invalidLines.map((p) => p.line)).toEqual([2, 3, 5, 7, 8])
    expect(await count()).toBe(before + 7)
    const stored = await db.selectFrom('users').select(['email', 'password_hash', 'email_verified', 'first_verified_at']).where('email', '=', 'bcrypt.2b@example.com').executeTakeFirstOrThrow()
    expect(stored).toMatchObject({ password_hash: expect.stringMatching(/^import:bcrypt:\$2b\$08\$/), email_verified: true, first_verified_at: now })

    const again = await importUsers(db, lines, { dryRun: false, now, batchSize: 3 })
    expect(again).toMatchObject({ imported: 0, skipped: 8, invalid: 5 })
    expect(again.skippedLines.filter((s) => s.reason === 'account_exists')).toHaveLength(7)
    expect(await count()).toBe(before + 7)
    const dryAgain = await importUsers(db, lines, { dryRun: true, now })
    expect(dryAgain).toMatchObject({ imported: 0, skipped: 8 })
  })
})
