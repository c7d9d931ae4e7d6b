/**
 * Rolling upgrade (docs/operations.md, "Rolling upgrades"): the previous release and this one run
 * side by side on one PostgreSQL database, as they do while instances are replaced one by one.
 *
 * The previous release is the last commit before the newest migration was added
 * (tests/helpers/previous-release.ts), built once per commit. A fresh database is migrated by that
 * release's own `db:migrate`, its IAM starts there and gets accounts and API tokens; then this
 * release's `npm run db:migrate` runs while a script signs up, signs in, refreshes and verifies
 * tokens against the old IAM without pause (every answer the expected one: the migrations expand,
 * they take nothing the old code uses); then this release's IAM starts beside the old one and the
 * same script crosses between them: a session opened on one refreshes on the other, a token made on
 * one verifies on the other.
 *
 * PostgreSQL only (DATABASE_URL): several instances on one database is what PostgreSQL is for, and
 * PGlite is one process's. Needs the git history back to the commit before the newest migration.
 */
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { migrations } from '../../iam/db/migrations/index'
import { call, CHROME_UA, PROXY_CONFIG, setCookieValue, signupBody, STRONG_PASSWORD, uniqueEmail, type Client, type Session } from '../helpers/accounts'
import { IAM_TEST_BUILD, ROOT } from '../helpers/build'
import { envWithoutStoreUrls, startIam, type IamServer, type Json } from '../helpers/iam-server'
import { buildPreviousRelease, findPreviousRelease } from '../helpers/previous-release'
import { createThrowawayPg, DATABASE_URL } from '../helpers/test-database'
import { newToken, verify, WIDE_LIMITERS, type CreatedToken } from './api-tokens-http'

const newestMigration = Object.keys(migrations).at(-1)!
const previous = DATABASE_URL ? findPreviousRelease(newestMigration) : { found: false as const, reason: 'runs with DATABASE_URL set' }
const skipReason = previous.found ? '' : ` (skipped: ${previous.reason})`

// Both releases take the same secrets: instances of one deployment share one config
// (docs/operations.md), and the dev profile would otherwise make each its own in its data dir.
const devSecret = () => `dev_${randomBytes(32).toString('base64url')}`
const SECRETS = { codes: devSecret(), links: devSecret(), totpKeys: [{ id: 'dev_totp', key: randomBytes(32).toString('base64url') }] }
const CONFIG: Json = { ...PROXY_CONFIG, secrets: SECRETS, rate_limiters: { apiTokensLimiters: WIDE_LIMITERS } }

const cleanups: Array<() => Promise<void> | void> = []
let databaseUrl: string
let storagePrefix: string
let oldIam: IamServer
let newIam: IamServer | undefined
let oldTokens: CreatedToken[] = []
let oldBuildMs = 0

/** `npm run db:migrate` with the build in `output` against the test database; rejects with its output unless it exits 0. */
async function dbMigrate(output: string): Promise<string> {
  const dataDir = mkdtempSync(join(tmpdir(), 'iam-rolling-migrate-'))
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }))
  const configPath = join(dataDir, 'iam.json')
  writeFileSync(configPath, JSON.stringify({ service: { dataDir }, database: { url: databaseUrl }, secrets: SECRETS }))
  const parentEnv = envWithoutStoreUrls()
  const child = spawn('npm', ['run', '--silent', 'db:migrate'], {
    cwd: ROOT,
    env: { ...parentEnv, NODE_ENV: 'development', IAM_CONFIG: configPath, IAM_OUTPUT_DIR: output },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let log = ''
  child.stdout.on('data', (chunk: Buffer) => (log += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (log += chunk.toString()))
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve))
  if (code !== 0) throw new Error(`db:migrate (${output}) exited with ${code}:\n${log}`)
  return log
}

async function appliedMigrations(): Promise<string[]> {
  const { default: pg } = await import('pg')
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  try {
    return (await client.query<{ name: string }>('select name from iam_migrations order by name')).rows.map((row) => row.name)
  } finally {
    await client.end()
  }
}

// Each round comes from addresses of its own (the documentation ranges of RFC 5737): the sign-up
// and sign-in limiters count per address, and the script is the same whatever the round.
let ipCounter = 0
const nextIp = () => {
  const n = ipCounter++
  return `${['192.0.2', '198.51.100', '203.0.113'][Math.floor(n / 250) % 3]}.${(n % 250) + 1}`
}

interface Answer {
  step: string
  on: string
  status: number
  expected: number
  body?: string
}

/** One request's answer, kept with the status the step expects; the body only when it is not that one. */
async function answer(answers: Answer[], step: string, on: IamServer, expected: number, res: Response): Promise<Response> {
  const entry: Answer = { step, on: on === oldIam ? 'old' : 'new', status: res.status, expected }
  if (res.status !== expected) entry.body = (await res.clone().text()).slice(0, 300)
  answers.push(entry)
  return res
}

const tokensOf = async (res: Response): Promise<{ accessToken: string; refreshToken: string } | undefined> => {
  if (res.status !== 200 && res.status !== 201) return undefined
  const body = (await res.json()) as Json
  const refreshToken = setCookieValue(res, 'session')
  return typeof body.accessToken === 'string' && refreshToken ? { accessToken: body.accessToken, refreshToken } : undefined
}

/**
 * The script: a new device on `a`, sign-up on `a`, sign-in on `b`, each session refreshed on the
 * other instance, then every token verified on both. Returns the sessions it opened.
 */
async function round(answers: Answer[], a: IamServer, b: IamServer, tokens: CreatedToken[]): Promise<Session[]> {
  const ip = nextIp()
  const check = await answer(answers, 'check', a, 200, await call(a, 'GET', '/check', { client: { ip, ua: CHROME_UA } }))
  const client: Client = { ip, ua: CHROME_UA, canary: setCookieValue(check, 'canary_id') }
  const email = uniqueEmail('rolling')
  const sessions: Session[] = []
  const signedUp = await tokensOf(await answer(answers, 'sign-up', a, 201, await call(a, 'POST', '/signup', { client, body: signupBody(email) })))
  const signedIn = await tokensOf(await answer(answers, 'sign-in', b, 200, await call(b, 'POST', '/login', { client, body: { email, password: STRONG_PASSWORD } })))
  for (const [opened, on] of [[signedUp, b], [signedIn, a]] as const) {
    if (!opened) continue
    const session: Session = { ...client, email, password: STRONG_PASSWORD, ...opened }
    const refreshed = await tokensOf(await answer(answers, 'refresh', on, 201, await call(on, 'POST', '/auth/user/refresh-session', { client, cookies: { session: session.refreshToken } })))
    sessions.push(refreshed ? { ...session, ...refreshed } : session)
  }
  for (const token of tokens) for (const on of new Set([a, b])) await answer(answers, 'verify', on, 200, await verify(on, token.rawApiKey, 'full', ip))
  return sessions
}

const unexpected = (answers: Answer[]) => answers.filter((a) => a.status !== a.expected)

describe.skipIf(!previous.found)(`rolling upgrade: the previous release beside this one on one PostgreSQL database${skipReason}`, () => {
  beforeAll(async () => {
    if (!previous.found) return
    const built = await buildPreviousRelease(previous.commit)
    oldBuildMs = built.ms
    const pg = await createThrowawayPg(DATABASE_URL!)
    cleanups.push(() => pg.drop())
    databaseUrl = pg.url
    storagePrefix = `rolling${randomBytes(4).toString('hex')}`
    // the previous release's schema, by its own migrate: what production has before the upgrade
    await dbMigrate(built.output)
    expect(await appliedMigrations()).not.toContain(newestMigration)
    oldIam = await startIam({ entry: join(built.output, 'server', 'index.mjs'), share: { databaseUrl, storagePrefix }, config: CONFIG })
    cleanups.push(() => oldIam.stop())
    const owner = (await round([], oldIam, oldIam, []))[0]!
    oldTokens = [await newToken(oldIam, owner), await newToken(oldIam, owner)]
  }, 240_000) // the previous release's first build: about 40 s of one core, more on a busy runner

  afterAll(async () => {
    if (oldBuildMs) console.log(`rolling-upgrade: the previous release (${previous.found ? previous.commit.slice(0, 12) : ''}) was built in ${(oldBuildMs / 1000).toFixed(1)} s`)
    for (const cleanup of cleanups.reverse()) await cleanup()
  })

  it('the previous release answers sign-up, sign-in, refresh and token checks as expected while db:migrate applies the new migrations', async () => {
    const answers: Answer[] = []
    let migrating = true
    let answeredDuring = 0
    const load = (async () => {
      while (migrating) {
        const before = answers.length
        await round(answers, oldIam, oldIam, oldTokens)
        if (migrating) answeredDuring += answers.length - before
      }
    })()
    const migrated = dbMigrate(IAM_TEST_BUILD.output).finally(() => (migrating = false))
    const [log] = await Promise.all([migrated, load])
    expect(log).toContain(newestMigration)
    expect(await appliedMigrations()).toEqual(Object.keys(migrations))
    // whole rounds answered before db:migrate exited: the script ran beside it, not only after
    expect(answeredDuring).toBeGreaterThan(0)
    expect(unexpected(answers)).toEqual([])
    // and after it: the old code on the new schema
    const after: Answer[] = []
    await round(after, oldIam, oldIam, oldTokens)
    expect(unexpected(after)).toEqual([])
  }, 90_000)

  it('a session opened on either release refreshes on the other, and a token made on either verifies on both', async () => {
    newIam = await startIam({ share: { databaseUrl, storagePrefix }, config: CONFIG })
    cleanups.push(() => newIam!.stop())
    const answers: Answer[] = []
    const owner = (await round(answers, newIam, oldIam, oldTokens))[0]!
    const newTokens = [await newToken(newIam, owner)]
    const tokens = [...oldTokens, ...newTokens]
    for (let i = 0; i < 2; i++) {
      await round(answers, oldIam, newIam, tokens)
      await round(answers, newIam, oldIam, tokens)
    }
    expect(unexpected(answers)).toEqual([])
    // each step crossed in both directions, so a pass is not a script that skipped the crossing
    for (const step of ['sign-up', 'sign-in', 'refresh', 'verify']) {
      expect(answers.filter((a) => a.step === step && a.on === 'old').length, step).toBeGreaterThan(0)
      expect(answers.filter((a) => a.step === step && a.on === 'new').length, step).toBeGreaterThan(0)
    }
  }, 60_000)
})
