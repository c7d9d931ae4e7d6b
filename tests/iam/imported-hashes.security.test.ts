/**
 * Imported password hashes cannot stall sign-in (imported-hash-caps.ts, hash-pool.ts,
 * docs/import.md), against a built IAM over HTTP:
 *
 * - the import (POST /admin/users/import, the lines `users:import` reads) refuses a line whose
 *   hash would cost too much to verify (bcrypt cost 16, a PBKDF2 key of 1024 bytes, Argon2
 *   p=255), naming the line and the parameter over its cap;
 * - an account whose stored hash is past the caps (written before them: put in the database here,
 *   since the import now refuses it) answers its right password as a wrong one, 401 and never a
 *   500, and the IAM warns once per hash, without the hash;
 * - while imported verifications that are slow but allowed (bcrypt cost 13) run, a normal
 *   account's sign-in goes through: both finish with their own answers;
 * - every source format of tests/fixtures/import still verifies on the worker threads of the
 *   built IAM (the worker's code and the packages it loads are in the bundle's output).
 *
 * A data set of its own (admin-cli-run.ts): the stored hashes are written to the database while the
 * IAM is stopped (PGlite), as users-import.test.ts does.
 */
import { pbkdf2Sync, randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { hash as argon2Hash } from '@node-rs/argon2'
import bcrypt from 'bcryptjs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, newDevice, PROXY_CONFIG, signupUser, uniqueEmail, type Session } from '../helpers/accounts'
import { CLOCK_ENV } from '../helpers/clock'
import type { Json } from '../helpers/iam-server'
import { flushedLogs } from '../helpers/logs'
import { connectDatabase } from '../helpers/test-database'
import { cliStage, deployment, type Cleanups, type CliStage, type Deployment } from './admin-cli-run'
import { authed, WIDE_LOGIN } from './second-factor-http'

const START_TIMEOUT_MS = 180_000
const PASSWORD = 'an imported password 7'
/** unpadded base64, as PHC strings carry it */
const b64 = (bytes: Buffer) => bytes.toString('base64').replace(/=+$/, '')
const OVER_CAP_LOG = 'imported password hash over its cost caps'
const FIXTURES = join(import.meta.dirname, '../fixtures/import')
const FORMAT_FILES = ['bcrypt', 'argon2', 'scrypt', 'pbkdf2-sha256', 'keycloak', 'firebase-scrypt'] as const
const fixturePasswords = JSON.parse(readFileSync(join(FIXTURES, 'passwords.json'), 'utf8')) as Record<string, string>
const firebase = JSON.parse(readFileSync(join(FIXTURES, 'firebase-params.json'), 'utf8')) as Json
const fixtureRows = (file: string) =>
  readFileSync(join(FIXTURES, `${file}.jsonl`), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Json)

const cleanups: Cleanups = []
let dep: Deployment
let stage: CliStage
let admin: Session

/** POSTs `rows` (one JSON object per line) to the administrator's import: its summary. */
async function importLines(rows: Json[], dryRun = false): Promise<Json> {
  const res = await authed(await stage.server(), admin, 'POST', '/admin/users/import', { jsonl: rows.map((row) => JSON.stringify(row)).join('\n'), dryRun })
  const body = (await res.json()) as Json
  expect(res.status, JSON.stringify(body)).toBe(200)
  return body.data as Json
}

/** Sets stored password hashes directly (on PGlite while the IAM is stopped). */
const storeHashes = (hashes: Record<string, string>) =>
  stage.cliTurn(async () => {
    const db = await connectDatabase(dep.share.databaseUrl)
    try {
      for (const [email, hash] of Object.entries(hashes)) {
        const updated = await db.updateTable('users').set({ password_hash: hash }).where('email', '=', email).executeTakeFirst()
        expect(Number(updated.numUpdatedRows), email).toBe(1)
      }
    } finally {
      await db.destroy()
    }
  })

let ip = 0
const login = async (email: string, password: string) => {
  const iam = await stage.server()
  return call(iam, 'POST', '/login', { client: await newDevice(iam, { ip: `198.51.100.${++ip}` }), body: { email, password } })
}

beforeAll(async () => {
  dep = await deployment(cleanups, { ...PROXY_CONFIG, ...WIDE_LOGIN, import: { firebase } })
  stage = cliStage(dep, { env: CLOCK_ENV })
  const iam = await stage.server()
  admin = await signupUser(iam, { client: { ip: '203.0.113.80' } })
  const grant = await fetch(`${iam.url}/__test/platform-admin`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: admin.email, admin: true }) })
  expect(grant.status, await grant.clone().text()).toBe(200)
}, START_TIMEOUT_MS)

afterAll(async () => {
  await stage?.stop()
  for (const cleanup of cleanups.reverse()) await cleanup()
})

describe('imported hashes with bounded work', () => {
  it('the import refuses a hash past its caps, naming the line and the parameter', async () => {
    const salt = b64(randomBytes(16))
    const rows = [
      { email: 'fine.one@example.com', passwordHash: bcrypt.hashSync(PASSWORD, 4) },
      { email: 'bcrypt.16@example.com', passwordHash: `$2b$16$${'a'.repeat(53)}` },
      { email: 'pbkdf2.1024@example.com', passwordHash: `$pbkdf2-sha256$i=1000$${salt}$${b64(randomBytes(1024))}` },
      { email: 'argon2.p255@example.com', passwordHash: `$argon2id$v=19$m=4096,t=1,p=255$${salt}$${b64(randomBytes(32))}` },
      { email: 'fine.two@example.com' },
    ]
    const invalidLines = [
      { line: 2, reason: 'passwordHash: bcrypt cost is 16, over its cap of 13' },
      { line: 3, reason: 'passwordHash: pbkdf2 hash length is 1024 bytes, over its cap of 64 bytes' },
      { line: 4, reason: 'passwordHash: argon2 p is 255, over its cap of 16' },
    ]
    expect(await importLines(rows, true)).toMatchObject({ dryRun: true, lines: 5, imported: 2, invalid: 3, invalidLines })
    expect(await importLines(rows)).toMatchObject({ dryRun: false, lines: 5, imported: 2, invalid: 3, invalidLines })
  })

  it('while slow but allowed imported verifications run, a normal account signs in', async () => {
    const slow = await bcrypt.hash(PASSWORD, 13)
    const emails = ['slow.one@example.com', 'slow.two@example.com', 'slow.three@example.com']
    expect(await importLines(emails.map((email) => ({ email, passwordHash: slow })))).toMatchObject({ imported: emails.length, invalid: 0 })
    const normal = await signupUser(await stage.server(), { client: { ip: '203.0.113.90' }, email: uniqueEmail('normal') })

    const imported = emails.map((email) => login(email, `${PASSWORD} but wrong`))
    const [normalRes, ...importedRes] = await Promise.all([login(normal.email, normal.password), ...imported])
    expect(normalRes!.status, await normalRes!.clone().text()).toBe(200)
    // a wrong password, or, on a machine so loaded that the workers' deadline passed, "retry later":
    // never a 500, never a sign-in
    for (const res of importedRes) expect([401, 503]).toContain(res.status)

    // the allowed cost is verified: the right password signs in
    const right = await login(emails[0]!, PASSWORD)
    expect(right.status, await right.clone().text()).toBe(200)
  }, START_TIMEOUT_MS)

  it('every source format still verifies, on the worker threads of the built IAM', async () => {
    const rows = FORMAT_FILES.flatMap(fixtureRows)
    expect(await importLines(rows)).toMatchObject({ imported: rows.length, invalid: 0 })
    for (const { email } of rows as Array<{ email: string }>) {
      const wrong = await login(email, `${fixturePasswords[email]} but wrong`)
      expect(wrong.status, email).toBe(401)
      const right = await login(email, fixturePasswords[email]!)
      expect(right.status, `${email}: ${await right.clone().text()}`).toBe(200)
    }
  }, START_TIMEOUT_MS)

  it('an account whose stored hash is past the caps answers its right password as a wrong one (401), and the IAM warns once without the hash', async () => {
    const salt = randomBytes(16)
    const overCaps: Record<string, string> = {
      // each verifies PASSWORD with its own algorithm: only the caps refuse it
      'stored.pbkdf2@example.com': `import:pbkdf2:$pbkdf2-sha256$i=1000$${b64(salt)}$${b64(pbkdf2Sync(PASSWORD, salt, 1000, 1024, 'sha256'))}`,
      'stored.argon2@example.com': `import:argon2:${await argon2Hash(PASSWORD, { memoryCost: 2048, timeCost: 1, parallelism: 255 })}`,
      'stored.bcrypt@example.com': `import:bcrypt:${await bcrypt.hash(PASSWORD, 14)}`,
    }
    const emails = Object.keys(overCaps)
    expect(await importLines(emails.map((email) => ({ email, passwordHash: bcrypt.hashSync(PASSWORD, 4) })))).toMatchObject({ imported: emails.length, invalid: 0 })
    await storeHashes(overCaps)

    for (let round = 0; round < 2; round++) {
      for (const email of emails) {
        const res = await login(email, PASSWORD)
        expect(res.status, `${email}: ${await res.clone().text()}`).toBe(401)
        expect(await res.json()).toMatchObject({ ok: false })
      }
    }
    const logs = await flushedLogs(await stage.server())
    const warnings = logs.filter((line) => line.includes(OVER_CAP_LOG)).map((line) => JSON.parse(line) as Json)
    expect(warnings.map(({ level, kind, parameter }) => ({ level, kind, parameter }))).toEqual(
      expect.arrayContaining([
        { level: 'warn', kind: 'pbkdf2', parameter: 'hash length' },
        { level: 'warn', kind: 'argon2', parameter: 'p' },
        { level: 'warn', kind: 'bcrypt', parameter: 'cost' },
      ]),
    )
    expect(warnings).toHaveLength(3)
    const joined = logs.join('\n')
    for (const hash of Object.values(overCaps)) expect(joined).not.toContain(hash.slice(-20))
    expect(logs.filter((line) => /"level":"(error|fatal)"/.test(line))).toEqual([])
  }, START_TIMEOUT_MS)
})
