/**
 * `npm run iam -- users:import`: accounts brought in from a JSON Lines file, one fixture per source
 * format (tests/fixtures/import, each made by a reference implementation other than the verifier
 * or a published vector), against a built IAM: the right password signs in over POST /login and
 * the stored hash is then our Argon2id; a wrong one is refused; re-authentication and a password
 * change accept an imported current password and replace it; a second import skips every
 * address; bad lines are reported by number; a dry run writes nothing; external ids are stored, one
 * account each, and a bad or taken one refuses its line. PGlite when DATABASE_URL is
 * unset (the IAM stopped while the CLI or a direct read runs), PostgreSQL when it is set.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, loginUser, newDevice, PROXY_CONFIG, type Session } from '../helpers/accounts'
import type { Json } from '../helpers/iam-server'
import { connectDatabase } from '../helpers/test-database'
import { cli, cliJson, cliStage, deployment, tempDir, type Cleanups, type Deployment } from './admin-cli-run'

const START_TIMEOUT_MS = 180_000
const FIXTURES = join(import.meta.dirname, '../fixtures/import')
const FORMAT_FILES = ['bcrypt', 'argon2', 'scrypt', 'pbkdf2-sha256', 'keycloak', 'firebase-scrypt', 'passlib-pbkdf2'] as const
const passwords = JSON.parse(readFileSync(join(FIXTURES, 'passwords.json'), 'utf8')) as Record<string, string>
const firebase = JSON.parse(readFileSync(join(FIXTURES, 'firebase-params.json'), 'utf8')) as Json
const emailsOf = (file: string) =>
  readFileSync(join(FIXTURES, `${file}.jsonl`), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => (JSON.parse(line) as { email: string }).email)

const cleanups: Cleanups = []
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup()
})

describe('npm run iam -- users:import', () => {
  let dep: Deployment
  let stage: ReturnType<typeof cliStage>

  /** The stored password hashes of `emails`, read directly (on PGlite while the IAM is stopped). */
  const storedHashes = (emails: string[]) =>
    stage.cliTurn(async () => {
      const db = await connectDatabase(dep.share.databaseUrl)
      try {
        const rows = await db.selectFrom('users').select(['email', 'password_hash']).where('email', 'in', emails).execute()
        return Object.fromEntries(rows.map((row) => [row.email, row.password_hash]))
      } finally {
        await db.destroy()
      }
    })

  /** Puts a stored hash back (an imported one met by a signed-in session), on PGlite while the IAM is stopped. */
  const restoreHash = (email: string, hash: string) =>
    stage.cliTurn(async () => {
      const db = await connectDatabase(dep.share.databaseUrl)
      try {
        await db.updateTable('users').set({ password_hash: hash }).where('email', '=', email).execute()
      } finally {
        await db.destroy()
      }
    })
  const authed = async (s: Session, path: string, body: Json) => call(await stage.server(), 'POST', path, { client: s, cookies: { session: s.refreshToken }, bearer: s.accessToken, body })
  let importedHashes: Record<string, string | null> = {}

  beforeAll(async () => {
    dep = await deployment(cleanups, { ...PROXY_CONFIG, import: { firebase } })
    stage = cliStage(dep)
    await cliJson(['migrate'], dep.env)
  }, START_TIMEOUT_MS)
  afterAll(() => stage?.stop())

  it('a dry run reports every format and writes nothing', async () => {
    const files = FORMAT_FILES.map((file) => join(FIXTURES, `${file}.jsonl`))
    const runs = await stage.cliTurn(async () => {
      const out: Json[] = []
      for (const file of files) out.push(await cliJson(['users:import', file, '--dry-run'], dep.env))
      return out
    })
    expect(runs.map((run) => run.dryRun)).toEqual(files.map(() => true))
    expect(runs.map((run) => run.imported)).toEqual(FORMAT_FILES.map((file) => emailsOf(file).length))
    expect(runs[4]!.formats).toEqual({ 'keycloak-pbkdf2': 2 })
    expect(runs[5]!.formats).toEqual({ 'firebase-scrypt': 1 })
    expect(runs[6]!.formats).toEqual({ 'passlib-pbkdf2': 3 })
    const listed = await stage.cliTurn(() => cliJson(['users:list'], dep.env))
    expect(listed.users).toEqual([])
  }, START_TIMEOUT_MS)

  it('imports one fixture per format; a wrong password is refused, the right one signs in and the hash becomes our Argon2id', async () => {
    const imported = await stage.cliTurn(async () => {
      const out: Record<string, Json> = {}
      for (const file of FORMAT_FILES) out[file] = await cliJson(['users:import', join(FIXTURES, `${file}.jsonl`)], dep.env)
      return out
    })
    for (const file of FORMAT_FILES) expect(imported[file], file).toMatchObject({ ok: true, dryRun: false, imported: emailsOf(file).length, skipped: 0, invalid: 0 })
    const emails = FORMAT_FILES.flatMap(emailsOf)
    const before = await storedHashes(emails)
    for (const email of emails) expect(before[email], email).toMatch(/^import:/)
    importedHashes = before

    const iam = await stage.server()
    let device = 1
    for (const email of emails) {
      const client = await newDevice(iam, { ip: `198.51.100.${device++}` })
      const wrong = await call(iam, 'POST', '/login', { client, body: { email, password: `${passwords[email]} but wrong` } })
      expect(wrong.status, email).toBe(401)
      const right = await call(iam, 'POST', '/login', { client, body: { email, password: passwords[email] } })
      expect(right.status, `${email}: ${await right.clone().text()}`).toBe(200)
    }
    const after = await storedHashes(emails)
    for (const email of emails) expect(after[email], email).toMatch(/^\$argon2id\$/)

    // the new hash verifies the same password; the old algorithm is gone from the account
    const iamAgain = await stage.server()
    const email = emails[0]!
    const again = await call(iamAgain, 'POST', '/login', { client: await newDevice(iamAgain, { ip: '198.51.100.200' }), body: { email, password: passwords[email] } })
    expect(again.status).toBe(200)
  }, 4 * START_TIMEOUT_MS)

  it('re-authentication and a password change accept an imported hash as the current password, and replace it', async () => {
    const [reauthEmail, changeEmail] = ['scrypt.rfc@example.com', 'keycloak.sha512@example.com']
    const iam = await stage.server()
    const reauthSession = await loginUser(iam, reauthEmail, passwords[reauthEmail]!, await newDevice(iam, { ip: '198.51.100.210' }))
    const changeSession = await loginUser(iam, changeEmail, passwords[changeEmail]!, await newDevice(iam, { ip: '198.51.100.211' }))
    await restoreHash(reauthEmail, importedHashes[reauthEmail]!)
    await restoreHash(changeEmail, importedHashes[changeEmail]!)

    expect((await authed(reauthSession, '/auth/reauthenticate', { password: 'not the password' })).status).toBe(401)
    const reauth = await authed(reauthSession, '/auth/reauthenticate', { password: passwords[reauthEmail] })
    expect(reauth.status, await reauth.clone().text()).toBe(200)
    const newPassword = 'moved in with a brand new passphrase 91'
    const change = await authed(changeSession, '/auth/change-password', { currentPassword: passwords[changeEmail], password: newPassword, confirmedPassword: newPassword })
    expect(change.status, await change.clone().text()).toBe(200)

    const after = await storedHashes([reauthEmail, changeEmail])
    expect(after[reauthEmail]).toMatch(/^\$argon2id\$/)
    expect(after[changeEmail]).toMatch(/^\$argon2id\$/)
    const iamAgain = await stage.server()
    expect((await call(iamAgain, 'POST', '/login', { client: await newDevice(iamAgain, { ip: '198.51.100.212' }), body: { email: changeEmail, password: newPassword } })).status).toBe(200)
  }, 2 * START_TIMEOUT_MS)

  it('is idempotent: a second import skips every existing address and overwrites nothing', async () => {
    const file = join(FIXTURES, 'bcrypt.jsonl')
    const emails = emailsOf('bcrypt')
    const before = await storedHashes(emails)
    const again = await stage.cliTurn(() => cliJson(['users:import', file], dep.env))
    expect(again).toMatchObject({ imported: 0, skipped: emails.length, invalid: 0 })
    expect((again.skippedLines as Json[]).map((s) => s.reason)).toEqual(emails.map(() => 'account_exists'))
    expect(await storedHashes(emails)).toEqual(before)
  }, START_TIMEOUT_MS)

  it('reports each bad line with its number and reason, and imports the rest (text and --json)', async () => {
    const file = join(FIXTURES, 'bad-lines.jsonl')
    const { text, json } = await stage.cliTurn(async () => ({ text: await cli(['users:import', file, '--dry-run'], dep.env), json: await cliJson(['users:import', file], dep.env) }))
    expect(text.code, text.stderr).toBe(0)
    expect(text.stdout).toContain('line 2: invalid: not valid JSON')
    expect(text.stdout).toContain('dry run: nothing written')
    expect(json).toMatchObject({ lines: 8, imported: 2, skipped: 1, invalid: 5 })
    expect(json.invalidLines).toEqual([
      { line: 2, reason: 'not valid JSON' },
      { line: 3, reason: 'email is not an email address' },
      { line: 5, reason: expect.stringContaining('passwordHash:') },
      { line: 7, reason: 'unknown field password' },
      { line: 8, reason: expect.stringContaining('createdAt') },
    ])
    expect(json.skippedLines).toEqual([{ line: 6, email: 'GOOD.ONE@example.com', reason: 'duplicate_in_file' }])
    const listed = await stage.cliTurn(() => cliJson(['users:list', '--limit', '1000'], dep.env))
    const emails = (listed.users as Json[]).map((u) => u.email)
    expect(emails).toEqual(expect.arrayContaining(['good.one@example.com', 'good.three@example.com']))
    expect(emails).not.toContain('bad.hash@example.com')
  }, START_TIMEOUT_MS)

  /** The external ids of the accounts whose address starts with `prefix`, read directly. */
  const externalIds = (prefix: string) =>
    stage.cliTurn(async () => {
      const db = await connectDatabase(dep.share.databaseUrl)
      try {
        const rows = await db.selectFrom('users').select(['email', 'external_id']).where('email', 'like', `${prefix}%`).orderBy('email').execute()
        return Object.fromEntries(rows.map((row) => [row.email, row.external_id]))
      } finally {
        await db.destroy()
      }
    })

  it('imports external ids; a bad one, or one an earlier line or another account holds, is a refused line with its number and reason, and the rest go in whole', async () => {
    const path = join(tempDir(cleanups, 'external-ids'), 'users.jsonl')
    const file = (...rows: object[]) => writeFileSync(path, rows.map((row) => JSON.stringify(row)).join('\n'))
    file(
      { email: 'ext.a@example.com', externalId: 'crm-1001', passwordHash: '$2y$07$BCryptRequires22Chrcte/VlQH0piJtjXl.0t1XkA8pw9dMXTpOq' },
      { email: 'ext.b@example.com', externalId: 'x'.repeat(256) },
      { email: 'ext.c@example.com', externalId: 'crm\u00071003' },
      { email: 'ext.d@example.com', externalId: 1004 },
      { email: 'ext.e@example.com', externalId: 'crm-1001' },
      { email: 'ext.f@example.com', externalId: '  crm-1006  ', name: 'Trimmed' },
      // the passlib fixture's account holds this one (imported above)
      { email: 'ext.g@example.com', externalId: 'django-user-1041' },
    )
    const expected = [
      { line: 2, reason: 'externalId is longer than 255 characters' },
      { line: 3, reason: 'externalId has a control character or invalid Unicode' },
      { line: 4, reason: 'externalId must be a string' },
      { line: 5, reason: 'externalId is already on line 1' },
      { line: 7, reason: 'externalId already names another account' },
    ]
    const { dry, text } = await stage.cliTurn(async () => ({ dry: await cliJson(['users:import', path, '--dry-run'], dep.env), text: await cli(['users:import', path], dep.env) }))
    expect(dry).toMatchObject({ dryRun: true, lines: 7, imported: 2, invalid: 5, invalidLines: expected })
    expect(text.code, text.stderr).toBe(0)
    expect(text.stdout).toContain('imported 2 (bcrypt 1, none 1), skipped 0, invalid 5')
    expect(text.stdout).toContain('line 4: invalid: externalId must be a string')
    // no partial user: a refused line left no account behind, an imported one has all of its fields
    expect(await externalIds('ext.')).toEqual({ 'ext.a@example.com': 'crm-1001', 'ext.f@example.com': 'crm-1006' })
    expect(await externalIds('passlib.sha256@')).toEqual({ 'passlib.sha256@example.com': 'django-user-1041' })

    // again, with a different id for an existing address: the stored id stays, and the line says so
    file({ email: 'ext.a@example.com', externalId: 'crm-1001' }, { email: 'EXT.F@example.com', externalId: 'crm-9999' }, { email: 'ext.h@example.com', externalId: 'crm-1008' })
    const again = await stage.cliTurn(() => cliJson(['users:import', path], dep.env))
    expect(again).toMatchObject({ imported: 1, skipped: 2, invalid: 0 })
    expect(again.skippedLines).toEqual([
      { line: 1, email: 'ext.a@example.com', reason: 'account_exists' },
      { line: 2, email: 'EXT.F@example.com', reason: 'external_id_differs' },
    ])
    expect(await externalIds('ext.')).toEqual({ 'ext.a@example.com': 'crm-1001', 'ext.f@example.com': 'crm-1006', 'ext.h@example.com': 'crm-1008' })
    const iam = await stage.server()
    const login = await call(iam, 'POST', '/login', { client: await newDevice(iam, { ip: '198.51.100.220' }), body: { email: 'ext.a@example.com', password: 'rasmuslerdorf' } })
    expect(login.status, await login.clone().text()).toBe(200)
  }, START_TIMEOUT_MS)

  it('a user without a hash cannot sign in with a password; an unreadable file is one line on stderr', async () => {
    const iam = await stage.server()
    const res = await call(iam, 'POST', '/login', { client: await newDevice(iam, { ip: '198.51.100.201' }), body: { email: 'good.one@example.com', password: 'any password at all' } })
    expect(res.status).toBe(401)
    const missing = await stage.cliTurn(() => cli(['users:import', join(FIXTURES, 'absent.jsonl')], dep.env))
    expect(missing.code).toBe(1)
    expect(missing.stderr.trim().split('\n')).toHaveLength(1)
    expect(missing.stderr).toContain('cannot read')
  }, START_TIMEOUT_MS)
})
