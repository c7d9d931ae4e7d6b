/**
 * POST /admin/users/import (features/admin/import-users.ts, docs/import.md): the CLI's import for
 * lines an administrator posts. Who may call it, the dry run that writes nothing, bad lines
 * reported by number, an idempotent second run, the 5 MB bound whose 413 names the CLI, the
 * `users_imported` event on the administrator's account, and the same event from the CLI (no
 * account, `by: admin-cli`), read from the database.
 *
 * A data set of its own (tests/iam/admin-cli-run.ts deployment): the file moves its IAM's clock
 * past the admin re-authentication window, and runs the CLI on the same data (on PGlite the IAM is
 * stopped meanwhile).
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { request as httpRequest } from 'node:http'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ADMIN_IMPORT_LIMIT_BYTES } from '../../iam/contract/admin'
import { applyRefresh, call, loginUser, newDevice, PROXY_CONFIG, refresh, signupUser, STRONG_PASSWORD, type Session } from '../helpers/accounts'
import { advanceClock, CLOCK_ENV } from '../helpers/clock'
import type { IamServer, Json } from '../helpers/iam-server'
import { connectDatabase } from '../helpers/test-database'
import { cliJson, cliStage, deployment, tempDir, type Cleanups, type CliStage, type Deployment } from './admin-cli-run'
import { authed, WIDE_LOGIN } from './second-factor-http'

const START_TIMEOUT_MS = 180_000
const ADMIN_WINDOW_MS = 10 * 60_000
const FIXTURES = join(import.meta.dirname, '../fixtures/import')
const passwords = JSON.parse(readFileSync(join(FIXTURES, 'passwords.json'), 'utf8')) as Record<string, string>

const cleanups: Cleanups = []
let dep: Deployment
let stage: CliStage
let admin: Session
let adminId: string
const tag = `imp${Date.now().toString(36)}`

const asAdmin = async (method: string, path: string, body?: unknown) => authed(await stage.server(), admin, method, path, body)
const postImport = (body: Json, as: Session = admin) => stage.server().then((iam) => authed(iam, as, 'POST', '/admin/users/import', body))

async function json(res: Response): Promise<Json> {
  const text = await res.text()
  try {
    return JSON.parse(text) as Json
  } catch {
    throw new Error(`not JSON (${res.status}): ${text}`)
  }
}

/** The accounts whose address starts with `prefix`, as the admin search finds them. */
async function accountsStartingWith(prefix: string): Promise<string[]> {
  const res = await asAdmin('GET', `/admin/users?q=${encodeURIComponent(prefix)}&limit=100`)
  const body = await json(res)
  expect(res.status, JSON.stringify(body)).toBe(200)
  return (body.data as { users: Array<{ email: string }> }).users.map((u) => u.email)
}

/** The administrator's own `users_imported` events, newest first. */
async function importEvents(): Promise<Json[]> {
  const res = await asAdmin('GET', '/auth/security-events?limit=100')
  const body = await json(res)
  expect(res.status, JSON.stringify(body)).toBe(200)
  return (body.data as { events: Json[] }).events.filter((e) => e.type === 'users_imported')
}

/** One line per user of the file; `bad` lines in between. */
const lines = (...entries: Array<Json | string>) => entries.map((e) => (typeof e === 'string' ? e : JSON.stringify(e))).join('\n')

/** A POST whose declared length is over the bound, headers only: the answer comes before any body byte. */
function declaredTooLarge(iam: IamServer, s: Session, bytes: number): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const headers = {
      'content-type': 'application/json',
      'content-length': String(bytes),
      'x-forwarded-for': s.ip,
      'user-agent': s.ua,
      authorization: `Bearer ${s.accessToken}`,
      cookie: `canary_id=${s.canary}; session=${s.refreshToken}`,
    }
    const req = httpRequest(`${iam.url}/admin/users/import`, { method: 'POST', headers }, (res) => {
      let body = ''
      res.on('data', (chunk: Buffer) => (body += chunk.toString()))
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, body })
        req.destroy()
      })
    })
    req.on('error', reject)
    req.flushHeaders()
  })
}

beforeAll(async () => {
  dep = await deployment(cleanups, { ...PROXY_CONFIG, ...WIDE_LOGIN })
  stage = cliStage(dep, { env: CLOCK_ENV })
  const iam = await stage.server()
  admin = await signupUser(iam, { client: { ip: '203.0.113.71' } })
  const grant = await fetch(`${iam.url}/__test/platform-admin`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: admin.email, admin: true }) })
  expect(grant.status, await grant.clone().text()).toBe(200)
  const found = await json(await asAdmin('GET', `/admin/users?q=${encodeURIComponent(admin.email)}`))
  adminId = (found.data as { users: Array<{ id: string }> }).users[0]!.id
}, START_TIMEOUT_MS)

afterAll(async () => {
  await stage?.stop()
  for (const cleanup of cleanups.reverse()) await cleanup()
})

describe('POST /admin/users/import', () => {
  const file = () =>
    lines(
      { email: `${tag}.ann@example.com`, name: 'Ann', emailVerified: true },
      { email: `${tag}.bob@example.com`, name: 'Bob' },
      '{"email": "broken"',
      { email: `${tag}.cy@example.com`, password_hash: 'x' },
      '',
      { email: `${tag.toUpperCase()}.ANN@example.com`, name: 'Ann again' },
      { email: `${tag}.dee@example.com` },
    )

  it('refuses a signed-in account that is not an administrator with the admin routes\' 403', async () => {
    const member = await signupUser(await stage.server(), { client: { ip: '203.0.113.72' } })
    const res = await postImport({ jsonl: file() }, member)
    const body = await json(res)
    expect(res.status, JSON.stringify(body)).toBe(403)
    expect(body).toMatchObject({ ok: false, error: 'Platform administrators only' })
  })

  it('a dry run reports what would happen, numbers each bad line, and writes nothing (no account, no event)', async () => {
    const res = await postImport({ jsonl: file(), dryRun: true })
    const body = await json(res)
    expect(res.status, JSON.stringify(body)).toBe(200)
    expect(body.data).toEqual({
      dryRun: true,
      lines: 6,
      imported: 3,
      skipped: 1,
      invalid: 2,
      formats: { none: 3 },
      invalidLines: [
        { line: 3, reason: 'not valid JSON' },
        { line: 4, reason: 'unknown field password_hash' },
      ],
      skippedLines: [{ line: 6, email: `${tag.toUpperCase()}.ANN@example.com`, reason: 'duplicate_in_file' }],
    })
    expect(await accountsStartingWith(tag)).toEqual([])
    expect(await importEvents()).toEqual([])
  })

  it('imports the good lines, reports the bad ones by number, and records users_imported with the administrator and the counts', async () => {
    const res = await postImport({ jsonl: file() })
    const body = await json(res)
    expect(res.status, JSON.stringify(body)).toBe(200)
    expect(body.data).toMatchObject({ dryRun: false, lines: 6, imported: 3, skipped: 1, invalid: 2 })
    expect((body.data as Json).invalidLines).toEqual([
      { line: 3, reason: 'not valid JSON' },
      { line: 4, reason: 'unknown field password_hash' },
    ])
    expect((await accountsStartingWith(tag)).sort()).toEqual([`${tag}.ann@example.com`, `${tag}.bob@example.com`, `${tag}.dee@example.com`])
    const events = await importEvents()
    expect(events).toHaveLength(1)
    expect(events[0]!.details).toEqual({ by: 'admin', adminId, lines: 6, imported: 3, skipped: 1, invalid: 2 })
  })

  it('is idempotent: the same lines again import nothing and skip every address that has an account', async () => {
    const res = await postImport({ jsonl: file() })
    const body = await json(res)
    expect(res.status, JSON.stringify(body)).toBe(200)
    expect(body.data).toMatchObject({ imported: 0, skipped: 4, invalid: 2 })
    expect(((body.data as Json).skippedLines as Json[]).map((s) => [s.line, s.reason])).toEqual([
      [1, 'account_exists'],
      [2, 'account_exists'],
      [6, 'duplicate_in_file'],
      [7, 'account_exists'],
    ])
    expect((await accountsStartingWith(tag)).length).toBe(3)
    const [latest] = await importEvents()
    expect(latest!.details).toMatchObject({ imported: 0, skipped: 4 })
  })

  it('keeps an imported password hash: the user signs in with the old password', async () => {
    const fixture = readFileSync(join(FIXTURES, 'bcrypt.jsonl'), 'utf8').split('\n')[0]!
    const email = (JSON.parse(fixture) as { email: string }).email
    const res = await postImport({ jsonl: fixture })
    expect((await json(res)).data).toMatchObject({ imported: 1, formats: { bcrypt: 1 } })
    const iam = await stage.server()
    const login = await call(iam, 'POST', '/login', { client: await newDevice(iam, { ip: '203.0.113.73' }), body: { email, password: passwords[email] } })
    expect(login.status, await login.clone().text()).toBe(200)
  })

  it('takes a body of exactly 5 MB, and refuses a larger one with 413 whose message points at the CLI', async () => {
    const padded = (bytes: number) => {
      const base = JSON.stringify({ jsonl: `{"email":"${tag}.pad@example.com"}`, dryRun: true })
      return { jsonl: `{"email":"${tag}.pad@example.com"}${' '.repeat(bytes - base.length)}`, dryRun: true }
    }
    const within = padded(ADMIN_IMPORT_LIMIT_BYTES)
    expect(JSON.stringify(within).length).toBe(5 * 1024 * 1024)
    const ok = await postImport(within)
    expect(ok.status, await ok.clone().text()).toBe(200)
    expect((await json(ok)).data).toMatchObject({ dryRun: true, lines: 1, imported: 1 })

    const over = await declaredTooLarge(await stage.server(), admin, ADMIN_IMPORT_LIMIT_BYTES + 1)
    expect(over.status).toBe(413)
    const body = JSON.parse(over.body) as Json
    expect(body.error).toBe('Payload too large')
    expect(body.message).toMatch(/npm run iam -- users:import/)
  })

  it('answers 400 naming the field for a body without lines or with a dryRun that is not a boolean', async () => {
    const missing = await json(await postImport({ dryRun: true }))
    expect(missing).toMatchObject({ ok: false, fields: { jsonl: expect.stringMatching(/jsonl/) } })
    const flag = await json(await postImport({ jsonl: '{"email":"x@example.com"}', dryRun: 'yes' }))
    expect(flag).toMatchObject({ ok: false, fields: { dryRun: 'dryRun: true or false' } })
  })

  it('refuses an administrator whose sign-in proof is older than the admin window (403 reauthenticate), until re-authenticated', async () => {
    const iam = await stage.server()
    await advanceClock(iam, ADMIN_WINDOW_MS + 60_000)
    admin = await applyRefresh(admin, await refresh(iam, admin))
    const stale = await postImport({ jsonl: `{"email":"${tag}.late@example.com"}` })
    const body = await json(stale)
    expect(stale.status, JSON.stringify(body)).toBe(403)
    expect(body).toMatchObject({ ok: false, reauthenticate: true })
    const proven = await authed(iam, admin, 'POST', '/auth/reauthenticate', { password: STRONG_PASSWORD })
    expect(proven.status, await proven.clone().text()).toBe(200)
    // the refused request wrote nothing
    expect(await accountsStartingWith(`${tag}.late`)).toEqual([])
    expect((await postImport({ jsonl: `{"email":"${tag}.late@example.com"}` })).status).toBe(200)
    expect(await accountsStartingWith(`${tag}.late`)).toEqual([`${tag}.late@example.com`])
  })
})

describe('external ids through POST /admin/users/import', () => {
  const passlibLine = readFileSync(join(FIXTURES, 'passlib-pbkdf2.jsonl'), 'utf8').split('\n')[0]!
  const passlibUser = JSON.parse(passlibLine) as { email: string; externalId: string }
  const file = () =>
    lines(
      passlibLine,
      { email: `${tag}.ext1@example.com`, externalId: `${tag}-crm-7` },
      { email: `${tag}.ext2@example.com`, externalId: 'tab\there' },
      { email: `${tag}.ext3@example.com`, externalId: ['not', 'a', 'string'] },
      { email: `${tag}.ext4@example.com`, externalId: `${tag}-crm-7` },
      { email: `${tag}.ext5@example.com`, externalId: '' },
    )
  const refused = [
    { line: 3, reason: 'externalId has a control character or invalid Unicode' },
    { line: 4, reason: 'externalId must be a string' },
    { line: 5, reason: 'externalId is already on line 2' },
    { line: 6, reason: 'externalId is empty' },
  ]

  /** The detail of the one account the admin search finds for `q`. */
  async function detailOf(q: string): Promise<Json> {
    const found = await json(await asAdmin('GET', `/admin/users?q=${encodeURIComponent(q)}`))
    const users = (found.data as { users: Array<{ id: string }> }).users
    expect(users, q).toHaveLength(1)
    const res = await asAdmin('GET', `/admin/users/${users[0]!.id}`)
    const body = await json(res)
    expect(res.status, JSON.stringify(body)).toBe(200)
    return (body.data as { user: Json }).user
  }

  it('a dry run checks each external id and reports the bad ones by line, writing nothing', async () => {
    const res = await postImport({ jsonl: file(), dryRun: true })
    const body = await json(res)
    expect(res.status, JSON.stringify(body)).toBe(200)
    expect(body.data).toMatchObject({ dryRun: true, lines: 6, imported: 2, invalid: 4, invalidLines: refused, formats: { 'passlib-pbkdf2': 1, none: 1 } })
    expect(await accountsStartingWith(`${tag}.ext`)).toEqual([])
  })

  it('stores a good external id with its account, refuses the lines of bad ones and creates no account for them', async () => {
    const body = await json(await postImport({ jsonl: file() }))
    expect(body.data).toMatchObject({ dryRun: false, lines: 6, imported: 2, invalid: 4, invalidLines: refused })
    expect(await accountsStartingWith(`${tag}.ext`)).toEqual([`${tag}.ext1@example.com`])
    expect(await detailOf(`${tag}.ext1@`)).toMatchObject({ email: `${tag}.ext1@example.com`, externalId: `${tag}-crm-7` })
    // an account made here has none
    expect(await detailOf(admin.email)).toMatchObject({ externalId: null })
  })

  it('the admin search finds an account by its whole external id, and not by the start of it', async () => {
    expect(await accountsStartingWith(`${tag}-crm-7`)).toEqual([`${tag}.ext1@example.com`])
    expect(await accountsStartingWith(`${tag}-crm-`)).toEqual([])
    expect((await detailOf(passlibUser.externalId)).email).toBe(passlibUser.email)
  })

  it('a second account with a held external id is a refused line; the same address keeps its stored id and the line says so', async () => {
    const res = await postImport({ jsonl: lines({ email: `${tag}.ext6@example.com`, externalId: `${tag}-crm-7` }, { email: `${tag}.EXT1@example.com`, externalId: `${tag}-crm-8` }) })
    const body = await json(res)
    expect(res.status, JSON.stringify(body)).toBe(200)
    expect(body.data).toMatchObject({
      imported: 0,
      skipped: 1,
      invalid: 1,
      invalidLines: [{ line: 1, reason: 'externalId already names another account' }],
      skippedLines: [{ line: 2, email: `${tag}.EXT1@example.com`, reason: 'external_id_differs' }],
    })
    expect(await accountsStartingWith(`${tag}.ext`)).toEqual([`${tag}.ext1@example.com`])
    expect(await detailOf(`${tag}.ext1@`)).toMatchObject({ externalId: `${tag}-crm-7` })
  })

  it('the imported person signs in with their passlib password and finds their external id in their own data export', async () => {
    const iam = await stage.server()
    const person = await loginUser(iam, passlibUser.email, passwords[passlibUser.email]!, await newDevice(iam, { ip: '203.0.113.74' }))
    const res = await authed(iam, person, 'GET', '/auth/export')
    const doc = await json(res)
    expect(res.status, JSON.stringify(doc)).toBe(200)
    expect(doc.profile).toMatchObject({ email: passlibUser.email, hasPassword: true, externalId: passlibUser.externalId })
  })
})

describe('users:import (the CLI)', () => {
  it('records users_imported with no account, by admin-cli, with the counts; a dry run records nothing', async () => {
    const dir = tempDir(cleanups, 'import')
    const path = join(dir, 'users.jsonl')
    writeFileSync(path, lines({ email: `${tag}.cli1@example.com` }, { email: `${tag}.cli2@example.com` }, 'not json'))
    const events = await stage.cliTurn(async () => {
      const dry = await cliJson(['users:import', path, '--dry-run'], dep.env)
      expect(dry).toMatchObject({ dryRun: true, imported: 2, invalid: 1 })
      const run = await cliJson(['users:import', path], dep.env)
      expect(run).toMatchObject({ dryRun: false, imported: 2, invalid: 1 })
      const db = await connectDatabase(dep.share.databaseUrl)
      try {
        return await db.selectFrom('security_events').select(['user_id', 'ip_address', 'details']).where('type', '=', 'users_imported').where('user_id', 'is', null).execute()
      } finally {
        await db.destroy()
      }
    })
    expect(events).toEqual([{ user_id: null, ip_address: null, details: { by: 'admin-cli', lines: 3, imported: 2, skipped: 0, invalid: 1 } }])
  })
})
