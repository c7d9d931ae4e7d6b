/**
 * The admin CLI (`npm run iam -- <command>`, iam/cli) against the database and storage of a built
 * IAM, its effects checked over HTTP. PGlite when DATABASE_URL is unset: PGlite is single-process,
 * so the IAM is stopped while the CLI runs and started again on the same data directory when a
 * test next talks to it; PostgreSQL (+ Redis) when it is set: the CLI runs beside the running IAM.
 *
 * The CLI runs as `node scripts/iam.mjs`, the command behind `npm run iam` (package.json), so each
 * of its many runs does not pay npm's own start; one test runs it through `npm run -s iam` itself.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { authedGet, call, loginUser, PROXY_CONFIG, refresh, signupUser, STRONG_PASSWORD, type Session } from '../helpers/accounts'
import type { IamServer, Json } from '../helpers/iam-server'
import { cli, cliJson, cliStage, deployment as newDeployment, onPostgres, tempDir as newTempDir, type Cleanups, type Deployment } from './admin-cli-run'
import { WIDE_LIMITERS } from './api-tokens-http'

const START_TIMEOUT_MS = 180_000

const cleanups: Cleanups = []
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup()
})

const tempDir = (tag: string) => newTempDir(cleanups, tag)
const deployment = () => newDeployment(cleanups, { ...PROXY_CONFIG, rate_limiters: { apiTokensLimiters: WIDE_LIMITERS } })

describe('npm run iam -- (help and usage)', () => {
  it('lists every command (through npm run itself), and shows the options of one with --help', async () => {
    const all = await cli(['--help'], {}, 'npm')
    expect(all.code).toBe(0)
    for (const name of ['migrate', 'config:check', 'users:list', 'users:import', 'users:purge', 'users:ban', 'users:unban', 'users:grant-admin', 'users:revoke-admin', 'sessions:list', 'sessions:revoke', 'keys:rotate', 'tokens:revoke', 'clients:create', 'clients:list', 'clients:show', 'clients:rotate-secret', 'clients:delete']) {
      expect(all.stdout + all.stderr).toContain(name)
    }
    const ban = await cli(['users:ban', '--help'], {})
    expect(ban.code).toBe(0)
    expect(ban.stdout + ban.stderr).toContain('--until')
  })

  it('refuses an unknown command and a missing argument with one line on stderr and a non-zero status', async () => {
    const unknown = await cli(['users:delete', 'a@example.com'], {})
    expect(unknown.code).toBe(2)
    expect(unknown.stderr.trim().split('\n')).toHaveLength(1)
    const missing = await cli(['users:ban'], { IAM_CONFIG: join(tempDir('x'), 'absent.json') })
    expect(missing.code).toBe(1)
    expect(missing.stderr.trim().split('\n')).toHaveLength(1)
  })
})

describe('npm run iam -- config:check', () => {
  it('passes a valid file, and names the bad key of an invalid one in one line', async () => {
    const dir = tempDir('config')
    const good = join(dir, 'good.json')
    writeFileSync(good, JSON.stringify({ service: { metrics: { allow: ['10.0.0.0/8'] } } }))
    const ok = await cliJson(['config:check', good], {})
    expect(ok).toMatchObject({ ok: true, valid: true, production: false })
    expect(ok.productionProblems).toEqual(expect.arrayContaining([expect.stringContaining('service.Hmac')]))
    const bad = join(dir, 'bad.json')
    writeFileSync(bad, JSON.stringify({ service: { metrics: { allow: ['not-an-ip'] } }, nonsense: 1 }))
    const refused = await cli(['config:check', bad], {})
    expect(refused.code).toBe(1)
    expect(refused.stderr.trim().split('\n')).toHaveLength(1)
    expect(refused.stderr).toContain('service.metrics.allow.0')
    expect(refused.stderr).toContain('nonsense: unknown key')
  })

  it('applies the production rules with --production or NODE_ENV=production', async () => {
    const file = join(tempDir('config'), 'dev.json')
    writeFileSync(file, JSON.stringify({}))
    for (const run of [await cli(['config:check', file, '--production'], {}), await cli(['config:check', file], { NODE_ENV: 'production' })]) {
      expect(run.code).toBe(1)
      expect(run.stderr).toContain('service.Hmac')
      expect(run.stderr.trim().split('\n')).toHaveLength(1)
    }
  })
})

describe('npm run iam -- (effects seen over HTTP)', () => {
  let dep: Deployment
  let stage: ReturnType<typeof cliStage>
  let banned: Session
  let other: Session
  let signedBeforeRotation: Session

  const server = (): Promise<IamServer> => stage.server()
  const cliTurn = <T>(run: () => Promise<T>): Promise<T> => stage.cliTurn(run)

  beforeAll(async () => {
    dep = await deployment()
    stage = cliStage(dep)
    const migrated = await cliJson(['migrate'], dep.env)
    expect(migrated.applied).toEqual(expect.arrayContaining(['2026-11-21-0001-initial']))
    const running = await server()
    banned = await signupUser(running)
    other = await signupUser(running)
    signedBeforeRotation = await signupUser(running)
  }, START_TIMEOUT_MS)
  afterAll(() => stage?.stop())

  it('migrate finds nothing left to apply on a migrated database', async () => {
    const again = await cliTurn(() => cliJson(['migrate'], dep.env))
    expect(again.applied).toEqual([])
  }, START_TIMEOUT_MS)

  it('users:list shows the accounts; users:ban refuses sign-in with 403 and ends the sessions; users:unban lifts it', async () => {
    const { listed, ban } = await cliTurn(async () => ({
      listed: await cliJson(['users:list'], dep.env),
      ban: await cliJson(['users:ban', banned.email, '--until', '7d'], dep.env),
    }))
    expect((listed.users as Json[]).map((u) => u.email)).toEqual(expect.arrayContaining([banned.email, other.email]))
    expect(ban.sessionsEnded).toBe(1)
    const login = await call(await server(), 'POST', '/login', { client: banned, body: { email: banned.email, password: STRONG_PASSWORD } })
    expect(login.status).toBe(403)
    expect((await refresh(await server(), banned)).status).toBe(401)

    const unban = await cliTurn(() => cliJson(['users:unban', banned.email], dep.env))
    expect(unban.wasBanned).toBe(true)
    const back = await loginUser(await server(), banned.email, STRONG_PASSWORD, banned)
    const events = (await (await authedGet(await server(), back, '/auth/security-events?limit=20')).json()) as { data: { events: Json[] } }
    expect(events.data.events.map((e) => e.type)).toEqual(expect.arrayContaining(['user_banned', 'user_unbanned']))
  }, 3 * START_TIMEOUT_MS)

  it('keys:rotate publishes a new signing key, and tokens signed before it keep working', async () => {
    const session = signedBeforeRotation
    const rotated = await cliTurn(() => cliJson(['keys:rotate'], dep.env))
    const kid = rotated.kid as string
    // a restarted (PGlite) IAM reads the keys at start; a running one re-reads them every minute or on an unknown kid
    if (!onPostgres) {
      const jwks = (await (await fetch(`${(await server()).url}/.well-known/jwks.json`)).json()) as { keys: Array<{ kid: string }> }
      expect(jwks.keys.map((k) => k.kid)).toContain(kid)
    }
    expect((await authedGet(await server(), session)).status).toBe(200)
  }, 2 * START_TIMEOUT_MS)
})
