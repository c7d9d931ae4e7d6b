/**
 * GET /admin/stats/signups (features/admin/signup-stats.ts, docs/administration.md) on an IAM of
 * its own with the bot check on: accounts are counted in the UTC hour they were created, refused
 * bot checks (features/bot-challenge/failure-tally.ts) in the hour they were refused, by reason.
 * The file moves the IAM's clock: to just after the start of an hour first, so nothing the tests
 * do crosses an hour by chance, then an hour on.
 */
import { solveChallenge } from 'altcha-lib/v1'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { applyRefresh, call, newDevice, PROXY_CONFIG, refresh, setCookieValue, signupBody, STRONG_PASSWORD, uniqueEmail, type Client, type Session } from '../helpers/accounts'
import { advanceClock, CLOCK_ENV } from '../helpers/clock'
import { startIam, type IamServer, type Json } from '../helpers/iam-server'
import { authed, WIDE_LOGIN } from './second-factor-http'

const HOUR_MS = 3_600_000
const CHALLENGE_EXPIRES_IN_MS = 60_000
let iam: IamServer
let admin: Session

interface StatsHour {
  hour: string
  signups: number
  challengesFailed: number
  failures: { missing: number; invalid: number; expired: number; replayed: number }
}
interface Stats {
  perHour: StatsHour[]
  totals: { signups: number; challengesFailed: number }
}

const encode = (payload: Json) => Buffer.from(JSON.stringify(payload)).toString('base64')

/** A solved challenge as the sign-up page sends it (`botProof`), at the smallest cost the config allows. */
async function solve(client: Client): Promise<{ proof: string; forged: string }> {
  const res = await call(iam, 'GET', '/auth/bot-challenge', { client })
  const c = ((await res.json()) as { data: { challenge: { algorithm: string; challenge: string; maxnumber: number; salt: string; signature: string } } }).data.challenge
  const solution = await solveChallenge(c.challenge, c.salt, c.algorithm, c.maxnumber).promise
  if (!solution) throw new Error('no solution found')
  const payload = { algorithm: c.algorithm, challenge: c.challenge, number: solution.number, salt: c.salt, signature: c.signature }
  // another number for the same challenge: the work it claims was not done
  return { proof: encode(payload), forged: encode({ ...payload, number: (solution.number + 1) % c.maxnumber }) }
}

const signup = (client: Client, email: string, botProof?: string) => call(iam, 'POST', '/signup', { client, body: { ...signupBody(email), ...(botProof ? { botProof } : {}) } })

async function signupSolved(client: Client): Promise<Session> {
  const email = uniqueEmail('stats')
  const res = await signup(client, email, (await solve(client)).proof)
  const body = (await res.json()) as Json
  expect(res.status, JSON.stringify(body)).toBe(201)
  return { ...client, email, password: STRONG_PASSWORD, accessToken: body.accessToken as string, refreshToken: setCookieValue(res, 'session')! }
}

async function stats(hours?: number | string): Promise<Stats> {
  const res = await authed(iam, admin, 'GET', `/admin/stats/signups${hours === undefined ? '' : `?hours=${hours}`}`)
  const body = (await res.json()) as Json
  expect(res.status, JSON.stringify(body)).toBe(200)
  return body.data as Stats
}
const currentHour = async () => (await stats(1)).perHour[0]!

/** After moving the clock: a fresh access token and a fresh sign-in proof for the admin routes. */
async function reauthenticateAdmin(): Promise<void> {
  admin = await applyRefresh(admin, await refresh(iam, admin))
  const proven = await authed(iam, admin, 'POST', '/auth/reauthenticate', { password: STRONG_PASSWORD })
  expect(proven.status, await proven.clone().text()).toBe(200)
}

beforeAll(async () => {
  iam = await startIam({
    config: {
      ...PROXY_CONFIG,
      ...WIDE_LOGIN,
      botChallenge: { enabled: true, maxNumber: 1000, expiresInMs: CHALLENGE_EXPIRES_IN_MS, loginAfterFailures: 3 },
    },
    env: CLOCK_ENV,
  })
  // to one minute past the next full hour
  const now = await advanceClock(iam, 0)
  await advanceClock(iam, HOUR_MS - (now % HOUR_MS) + 60_000)
  admin = await signupSolved(await newDevice(iam, { ip: '203.0.113.231' }))
  const granted = await fetch(`${iam.url}/__test/platform-admin`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: admin.email, admin: true }) })
  expect(granted.status).toBe(200)
}, 180_000)
afterAll(() => iam?.stop())

describe('GET /admin/stats/signups', () => {
  it('answers every hour of the window oldest first, the current hour last, 24 hours by default', async () => {
    const now = await advanceClock(iam, 0)
    const byDefault = await stats()
    expect(byDefault.perHour).toHaveLength(24)
    expect(byDefault.perHour.at(-1)!.hour).toBe(new Date(now - (now % HOUR_MS)).toISOString())
    expect(new Date(byDefault.perHour[0]!.hour).getTime()).toBe(now - (now % HOUR_MS) - 23 * HOUR_MS)
    expect((await stats(168)).perHour).toHaveLength(168)
  })

  it('counts an account in the hour it was created, and the next hour apart', async () => {
    const before = await currentHour()
    const client = await newDevice(iam, { ip: '203.0.113.232' })
    await signupSolved(client)
    await signupSolved(client)
    expect((await currentHour()).signups).toBe(before.signups + 2)

    await advanceClock(iam, HOUR_MS)
    await reauthenticateAdmin()
    await signupSolved(client)
    const [previous, current] = (await stats(2)).perHour
    expect(previous).toMatchObject({ hour: before.hour, signups: before.signups + 2 })
    expect(current!.signups).toBe(1)
    expect(new Date(current!.hour).getTime() - new Date(previous!.hour).getTime()).toBe(HOUR_MS)
  })

  it('counts refused bot checks in their hour by reason: missing, forged, expired and replayed', async () => {
    const before = await currentHour()
    const client = await newDevice(iam, { ip: '203.0.113.233' })
    const refusedWith = async (botProof: string | undefined, botCheck: string) => {
      const res = await signup(client, uniqueEmail('stats'), botProof)
      expect(res.status).toBe(400)
      expect(await res.json()).toMatchObject({ code: botProof ? 'bot_check_failed' : 'bot_check_required', botCheck })
    }
    await refusedWith(undefined, 'missing')
    await refusedWith(undefined, 'missing')
    await refusedWith((await solve(client)).forged, 'invalid')
    const used = (await solve(client)).proof
    expect((await signup(client, uniqueEmail('stats'), used)).status).toBe(201)
    await refusedWith(used, 'replayed')
    const stale = (await solve(client)).proof
    await advanceClock(iam, CHALLENGE_EXPIRES_IN_MS + 1_000)
    await refusedWith(stale, 'expired')
    await reauthenticateAdmin()

    // the counts are written just after the refusals' answers
    await expect
      .poll(async () => {
        const now = await currentHour()
        return { hour: now.hour, signups: now.signups - before.signups, challengesFailed: now.challengesFailed - before.challengesFailed, failures: now.failures }
      })
      .toEqual({
        hour: before.hour,
        signups: 1,
        challengesFailed: 5,
        failures: {
          missing: before.failures.missing + 2,
          invalid: before.failures.invalid + 1,
          expired: before.failures.expired + 1,
          replayed: before.failures.replayed + 1,
        },
      })
    const window = await stats(2)
    expect(window.totals).toEqual({
      signups: window.perHour.reduce((sum, h) => sum + h.signups, 0),
      challengesFailed: window.perHour.reduce((sum, h) => sum + h.challengesFailed, 0),
    })
  })

  it('refuses hours outside 1 to 168, a fraction, a word or another key with validation_failed', async () => {
    for (const query of ['hours=0', 'hours=169', 'hours=1.5', 'hours=many', 'hours=-3', 'days=2']) {
      const res = await authed(iam, admin, 'GET', `/admin/stats/signups?${query}`)
      const body = (await res.json()) as Json
      expect(res.status, query).toBe(400)
      expect(body, query).toMatchObject({ ok: false, code: 'validation_failed' })
      if (query.startsWith('hours')) expect((body.fields as Json).hours, query).toBe('hours: 1 to 168')
    }
  })

  it('refuses a signed-in account that is not an administrator', async () => {
    const member = await signupSolved(await newDevice(iam, { ip: '203.0.113.234' }))
    const res = await authed(iam, member, 'GET', '/admin/stats/signups')
    expect(res.status).toBe(403)
    expect(await res.json()).toMatchObject({ ok: false, error: 'Platform administrators only' })
  })
})
