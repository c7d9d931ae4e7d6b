/**
 * A person's first week, scripted on the default anomaly checks and sign-in limits, with the IAM's
 * clock moved day by day: sign-up on the laptop, signing out and in again, the phone, the office
 * desktop, a second app in another browser (a session of its own, as the OpenID Provider's sign-in
 * opens), and then every day each device comes back (a refresh, then a request), some days after a
 * weekend away. Every answer the person meets is counted: a challenge (202) is a false one here,
 * since nothing of this is unusual. docs/anomalies.md reports the count.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { applyRefresh, authedGet, call, loginUser, newDevice, PROXY_CONFIG, refresh, signupUser, type Session } from '../helpers/accounts'
import { advanceClock, CLOCK_ENV } from '../helpers/clock'
import { startIam, type IamServer } from '../helpers/iam-server'

const HOUR = 3_600_000
let iam: IamServer
beforeAll(async () => {
  iam = await startIam({ config: PROXY_CONFIG, env: CLOCK_ENV })
}, 240_000)
afterAll(() => iam?.stop())

/** Every answer of the week by status, and the requests that were challenged. */
const answers = { total: 0, challenged: [] as string[] }

function count(what: string, status: number): void {
  answers.total++
  if (status === 202) answers.challenged.push(what)
}

/** A device comes back: its token is old, so it refreshes, then makes a request. */
async function comeBack(what: string, s: Session): Promise<Session> {
  const res = await refresh(iam, s)
  count(`${what}: refresh`, res.status)
  expect(res.status, `${what}: refresh`).toBe(201)
  const next = await applyRefresh(s, res)
  const used = await authedGet(iam, next)
  count(`${what}: request`, used.status)
  return next
}

describe('the first week', () => {
  it('meets no challenge: sign-up, three more devices and a second app on the first day, then every day a visit from each, a weekend away included', async () => {
    const laptop = await newDevice(iam, { ip: '203.0.113.20' })
    const phone = await newDevice(iam, { ip: '198.51.100.20', ua: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1' })
    const desktop = await newDevice(iam, { ip: '192.0.2.20' })
    const otherBrowser = await newDevice(iam, { ip: '203.0.113.20' })

    // day 1, within ten minutes: sign up, sign out and in again, the phone, the office desktop, the second app
    let onLaptop = await signupUser(iam, { client: laptop, remember: true })
    count('laptop: sign-up', (await authedGet(iam, onLaptop)).status)
    expect((await call(iam, 'POST', '/auth/logout', { client: onLaptop, cookies: { session: onLaptop.refreshToken }, bearer: onLaptop.accessToken })).status).toBe(200)
    onLaptop = await loginUser(iam, onLaptop.email, onLaptop.password, laptop)
    count('laptop: signed in again', (await authedGet(iam, onLaptop)).status)
    const sessions: Record<string, Session> = { laptop: onLaptop }
    for (const [name, device] of [['phone', phone], ['desktop', desktop], ['second app', otherBrowser]] as const) {
      sessions[name] = await loginUser(iam, onLaptop.email, onLaptop.password, device)
      count(`${name}: signed in`, (await authedGet(iam, sessions[name]!)).status)
    }

    // days 2 to 7, each device once a day; days 4 and 5 are a weekend away
    for (const day of [2, 3, 6, 7]) {
      await advanceClock(iam, (day === 6 ? 3 : 1) * 24 * HOUR)
      for (const name of Object.keys(sessions)) sessions[name] = await comeBack(`day ${day}, ${name}`, sessions[name]!)
    }

    expect(answers.total).toBeGreaterThan(30)
    expect(answers.challenged).toEqual([])
  })
})
