/**
 * The admin CLI's account commands (admin rights, bans refused, sessions, API tokens) against a
 * built IAM, their effects checked over HTTP; the stage and runner are admin-cli-run.ts's (on
 * PGlite the IAM is stopped for each CLI turn and started again, on PostgreSQL the CLI runs
 * beside it). .ci/run runs this file on PostgreSQL only: the commands and their SQL are the same on
 * both, and what is PGlite's own (the stop, the lock, the restart) stays in admin-cli.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { authedGet, loginUser, newDevice, PROXY_CONFIG, refresh, signupUser, type Session } from '../helpers/accounts'
import type { IamServer, Json } from '../helpers/iam-server'
import { cli, cliJson, cliStage, deployment as newDeployment, type Cleanups, type Deployment } from './admin-cli-run'
import { newToken, verify, WIDE_LIMITERS } from './api-tokens-http'

const START_TIMEOUT_MS = 180_000

const cleanups: Cleanups = []
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup()
})

describe('npm run iam -- (account commands, effects seen over HTTP)', () => {
  let dep: Deployment
  let stage: ReturnType<typeof cliStage>
  let banned: Session
  let twoDevices: { first: Session; second: Session }
  let tokenOwner: Session

  const server = (): Promise<IamServer> => stage.server()
  const cliTurn = <T>(run: () => Promise<T>): Promise<T> => stage.cliTurn(run)

  beforeAll(async () => {
    dep = await newDeployment(cleanups, { ...PROXY_CONFIG, rate_limiters: { apiTokensLimiters: WIDE_LIMITERS } })
    stage = cliStage(dep)
    await cliJson(['migrate'], dep.env)
    const running = await server()
    banned = await signupUser(running)
    const first = await signupUser(running)
    const second = await loginUser(running, first.email, first.password, await newDevice(running, { ip: '198.51.100.30' }))
    twoDevices = { first, second }
    tokenOwner = await signupUser(running)
  }, START_TIMEOUT_MS)
  afterAll(() => stage?.stop())

  it('users:grant-admin opens /admin to the account, users:revoke-admin closes it; both are recorded on the account', async () => {
    const member = await signupUser(await server())
    const refused = await authedGet(await server(), member, '/admin/users?limit=1')
    expect(refused.status).toBe(403)
    const { granted, again } = await cliTurn(async () => ({
      granted: await cliJson(['users:grant-admin', member.email], dep.env),
      again: await cliJson(['users:grant-admin', member.email], dep.env),
    }))
    expect(granted.changed).toBe(true)
    expect(again.changed).toBe(false)
    expect((await authedGet(await server(), member, '/admin/users?limit=1')).status).toBe(200)

    const { revoked, unknown } = await cliTurn(async () => ({
      revoked: await cliJson(['users:revoke-admin', member.email], dep.env),
      unknown: await cli(['users:grant-admin', 'nobody.at.all@example.com'], dep.env),
    }))
    expect(revoked.changed).toBe(true)
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toContain('no account with the email nobody.at.all@example.com')
    expect((await authedGet(await server(), member, '/admin/users?limit=1')).status).toBe(403)
    const events = (await (await authedGet(await server(), member, '/auth/security-events?limit=20')).json()) as { data: { events: Json[] } }
    expect(events.data.events.map((e) => e.type)).toEqual(expect.arrayContaining(['admin_granted', 'admin_revoked']))
  }, 3 * START_TIMEOUT_MS)

  it('users:ban refuses an unknown address and a past --until, in one line each', async () => {
    // one after the other: on PGlite a second CLI at once would be refused the held data dir instead
    const { unknown, past } = await cliTurn(async () => ({
      unknown: await cli(['users:ban', 'nobody.at.all@example.com'], dep.env),
      past: await cli(['users:ban', banned.email, '--until', '2001-01-01'], dep.env),
    }))
    for (const run of [unknown, past]) {
      expect(run.code).toBe(1)
      expect(run.stderr.trim().split('\n')).toHaveLength(1)
    }
    expect(unknown.stderr).toContain('no account with the email nobody.at.all@example.com')
    expect(past.stderr).toContain('--until must be in the future')
  }, START_TIMEOUT_MS)

  it("sessions:list shows both devices' sessions; sessions:revoke ends one (its refresh is 401), --all ends the rest", async () => {
    const { first, second } = twoDevices
    const target = await cliTurn(async () => {
      const listed = await cliJson(['sessions:list', first.email], dep.env)
      const sessions = listed.sessions as Array<{ id: string; ipAddress: string }>
      expect(sessions).toHaveLength(2)
      const found = sessions.find((s) => s.ipAddress === second.ip)
      expect(found).toBeDefined()
      await cliJson(['sessions:revoke', first.email, '--session', found!.id], dep.env)
      return found!
    })
    expect((await refresh(await server(), second)).status).toBe(401)
    expect((await refresh(await server(), first)).status).toBe(201)

    const { unknown, all } = await cliTurn(async () => ({
      unknown: await cli(['sessions:revoke', first.email, '--session', target.id], dep.env),
      all: await cliJson(['sessions:revoke', first.email, '--all'], dep.env),
    }))
    expect(unknown.code).toBe(1)
    expect(all.revoked).toBe(1)
    expect((await refresh(await server(), first)).status).toBe(401)
  }, 4 * START_TIMEOUT_MS)

  it('tokens:revoke makes a token fail verification at once', async () => {
    const token = await newToken(await server(), tokenOwner)
    expect((await verify(await server(), token.rawApiKey, 'full')).status).toBe(200)
    const revoked = await cliTurn(() => cliJson(['tokens:revoke', token.rawPublicId], dep.env))
    expect(revoked.userId).toBeTypeOf('number')
    expect((await verify(await server(), token.rawApiKey, 'full')).status).toBe(401)
    const again = await cliTurn(() => cli(['tokens:revoke', token.rawPublicId], dep.env))
    expect(again.code).toBe(1)
  }, 2 * START_TIMEOUT_MS)
})
