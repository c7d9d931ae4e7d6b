/**
 * A ban (`npm run iam -- users:ban`) reaches the account's API tokens: while it lasts they verify
 * exactly as revoked tokens do (nothing tells the caller the account is banned), and they verify
 * again after `users:unban` or once the ban has run out. The CLI runs beside the built IAM on one
 * data set (admin-cli-run.ts: PGlite, or PostgreSQL with DATABASE_URL).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PROXY_CONFIG, signupUser, type Session } from '../helpers/accounts'
import { advanceClock, CLOCK_ENV } from '../helpers/clock'
import type { Json } from '../helpers/iam-server'
import { cliJson, cliStage, deployment, type CliStage, type Cleanups, type Deployment } from './admin-cli-run'
import { jsonOf, manage, newToken, refOf, verify, WIDE_LIMITERS, type CreatedToken } from './api-tokens-http'

const START_TIMEOUT_MS = 180_000
const DAY_MS = 86_400_000

const cleanups: Cleanups = []
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup()
})

/** Status and body of a verification, the body without its date (which differs per answer). */
async function answerOf(res: Response): Promise<{ status: number; body: Json }> {
  const { date, ...body } = await jsonOf(res)
  expect(date).toEqual(expect.any(String))
  return { status: res.status, body }
}

describe("a banned user's API tokens", () => {
  let dep: Deployment
  let stage: CliStage
  let owner: Session
  let token: CreatedToken
  let revoked: CreatedToken
  const verifyOwnToken = async () => verify(await stage.server(), token.rawApiKey, 'full')

  beforeAll(async () => {
    dep = await deployment(cleanups, { ...PROXY_CONFIG, rate_limiters: { apiTokensLimiters: WIDE_LIMITERS } })
    stage = cliStage(dep, { env: CLOCK_ENV })
    const iam = await stage.server()
    owner = await signupUser(iam)
    token = await newToken(iam, owner)
    revoked = await newToken(iam, owner)
    expect((await manage(iam, owner, 'revoke', refOf(revoked))).status).toBe(200)
  }, START_TIMEOUT_MS)
  afterAll(() => stage?.stop())

  it("refuses a banned user's API token as revoked and accepts it again after unban", async () => {
    expect((await verifyOwnToken()).status).toBe(200)

    const ban = await stage.cliTurn(() => cliJson(['users:ban', owner.email, '--until', '7d'], dep.env))
    expect(ban.tokensSuspended).toBe(1)
    const asBanned = await answerOf(await verifyOwnToken())
    const asRevoked = await answerOf(await verify(await stage.server(), revoked.rawApiKey, 'full'))
    expect(asRevoked).toEqual({ status: 401, body: { ok: false, reason: 'Invalid key', code: 'api_key_invalid' } })
    expect(asBanned).toEqual(asRevoked)

    const unban = await stage.cliTurn(() => cliJson(['users:unban', owner.email], dep.env))
    expect(unban.wasBanned).toBe(true)
    const back = await verifyOwnToken()
    expect(back.status).toBe(200)
    // the refused verifications were not counted: this is the token's second use
    expect(await jsonOf(back)).toMatchObject({ ok: true, data: { tokenId: token.tokenId, usageCount: 2 } })
  }, 4 * START_TIMEOUT_MS)

  it('accepts the token again by itself once the ban has run out', async () => {
    await stage.cliTurn(() => cliJson(['users:ban', owner.email, '--until', '1d'], dep.env))
    expect((await verifyOwnToken()).status).toBe(401)
    await advanceClock(await stage.server(), DAY_MS + 60_000)
    expect((await verifyOwnToken()).status).toBe(200)
  }, 2 * START_TIMEOUT_MS)
})
