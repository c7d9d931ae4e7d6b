/**
 * The moments of a mail in the reader's time zone (iam/contract/time-zones.ts, migration 0024): the
 * browser's IANA zone comes in the X-Time-Zone header (the gateway forwards its `time_zone`
 * cookie), is kept on the account at sign-up and at sign-in, and a mail names its moments in it,
 * by name; an unknown or hostile zone is ignored (the request is answered as without it, never a
 * 500) and such a mail says UTC, as before. The owner may choose the zone on the account page
 * (POST /auth/profile `{ timeZone }`): a chosen zone wins over the browser's at later sign-ins.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { authedGet, call, newDevice, PROXY_CONFIG, setCookieValue, signupUser, STRONG_PASSWORD, uniqueEmail, type Session } from '../helpers/accounts'
import { startIam, type IamServer } from '../helpers/iam-server'
import { recipients, startSmtp, type SmtpCapture } from '../helpers/smtp'

const PASSWORD = STRONG_PASSWORD
const NEW_PASSWORD = 'a brand new passphrase 2026'

let iam: IamServer
let smtp: SmtpCapture
beforeAll(async () => {
  smtp = await startSmtp()
  iam = await startIam({ config: { ...PROXY_CONFIG, anomalies: { velocity: { count: 50 } }, providers: [{ name: 'demo', useStandardProfile: true }] }, env: { SMTP_URL: smtp.url } })
}, 240_000)
afterAll(async () => {
  await iam?.stop()
  await smtp?.stop()
})

let ipSeq = 0
/** A new account on a device of its own address (the sign-up and login limiters key on the IP), the zone sent as the gateway sends it. */
const signUp = (zone?: string): Promise<Session> =>
  signupUser(iam, { client: { ip: `198.51.100.${++ipSeq}` }, email: uniqueEmail('tz'), ...(zone === undefined ? {} : { headers: { 'x-time-zone': zone } }) })

/** Changes the password and returns the text of the notice it mails (its moment is "now"). */
async function passwordNoticeOf(s: Session): Promise<{ text: string; sentAt: number }> {
  const sentAt = Date.now()
  const res = await call(iam, 'POST', '/auth/change-password', { client: s, cookies: { session: s.refreshToken }, bearer: s.accessToken, body: { currentPassword: s.password, password: NEW_PASSWORD, confirmedPassword: NEW_PASSWORD } })
  expect(res.status, await res.text()).toBe(200)
  const mail = await smtp.waitForMail((m) => recipients(m).includes(s.email) && /password was changed/.test(m.subject ?? ''))
  return { text: mail.text ?? '', sentAt }
}

/** "HH:MM" of `ms` in `zone`, and of the next minute (the mail may be written a minute later). */
function clockIn(zone: string, ms: number): string[] {
  const format = new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZone: zone })
  return [format.format(ms), format.format(ms + 60_000)]
}

describe('the moments of a mail in the reader time zone', () => {
  it('says the moment in the zone the browser named at sign-up, by its name', async () => {
    const user = await signUp('Asia/Kathmandu')
    const { text, sentAt } = await passwordNoticeOf(user)
    // Kathmandu is UTC+05:45 all year: a local time no UTC reading can pass for
    const shown = /(\d{2}:\d{2}) \(Asia\/Kathmandu\)/.exec(text)
    expect(shown, text).not.toBeNull()
    expect(clockIn('Asia/Kathmandu', sentAt)).toContain(shown![1])
    expect(text).not.toMatch(/\d{2}:\d{2} UTC/)
  })

  it('keeps the zone of the latest sign-in, in its canonical spelling', async () => {
    const user = await signUp('Europe/Berlin')
    const client = await newDevice(iam, { ip: user.ip })
    const res = await call(iam, 'POST', '/login', { client, body: { email: user.email, password: PASSWORD }, headers: { 'x-time-zone': 'america/new_york' } })
    expect(res.status, await res.text()).toBe(200)
    const { text, sentAt } = await passwordNoticeOf(user)
    const shown = /(\d{2}:\d{2}) \(America\/New_York\)/.exec(text)
    expect(shown, text).not.toBeNull()
    expect(clockIn('America/New_York', sentAt)).toContain(shown![1])
  })

  it('ignores an unknown or hostile zone at sign-up and sign-in (no 500) and says the moment in UTC', async () => {
    const user = await signUp('Mars/Olympus_Mons')
    for (const zone of ['+01:00', '../../etc/passwd', 'x'.repeat(300), "Europe/Berlin'; drop table users; --"]) {
      const res = await call(iam, 'POST', '/login', { client: await newDevice(iam, { ip: user.ip }), body: { email: user.email, password: PASSWORD }, headers: { 'x-time-zone': zone } })
      expect(res.status, zone).toBe(200)
    }
    const { text, sentAt } = await passwordNoticeOf(user)
    const shown = /(\d{2}:\d{2}) UTC/.exec(text)
    expect(shown, text).not.toBeNull()
    expect(clockIn('UTC', sentAt)).toContain(shown![1])
    expect(text).not.toMatch(/Mars|Olympus|passwd|drop table/)
  })
})

describe('the time zone of an account that signs in with a provider', () => {
  /** A provider sign-in of `email` from a device of its own, the zone sent as the gateway sends it. */
  async function providerSignIn(email: string, zone: string): Promise<Session> {
    const client = await newDevice(iam, { ip: `203.0.113.${++ipSeq}` })
    const res = await call(iam, 'POST', '/auth/OAuth/demo', { client, body: { sub: `sub-${email}`, email, email_verified: true, name: 'Provider User' }, headers: { 'x-time-zone': zone } })
    const body = (await res.json()) as { accessToken: string }
    expect([200, 201], JSON.stringify(body)).toContain(res.status)
    return { ...client, email, password: NEW_PASSWORD, accessToken: body.accessToken, refreshToken: setCookieValue(res, 'session')! }
  }

  it('keeps the zone of its first and of its latest provider sign-in, as a password account does', async () => {
    const email = uniqueEmail('tz-provider')
    const first = await providerSignIn(email, 'Asia/Kathmandu')
    // setting a first password mails a notice with its moment; the request names no zone, so the
    // notice's zone is the account's
    const set = await call(iam, 'POST', '/auth/set-password', { client: first, cookies: { session: first.refreshToken }, bearer: first.accessToken, body: { password: NEW_PASSWORD, confirmedPassword: NEW_PASSWORD } })
    expect(set.status, await set.text()).toBe(200)
    const notice = await smtp.waitForMail((m) => recipients(m).includes(email) && /\(Asia\/Kathmandu\)/.test(m.text ?? ''))
    expect(notice.text).not.toMatch(/\d{2}:\d{2} UTC/)

    const latest = await providerSignIn(email, 'America/New_York')
    const res = await call(iam, 'POST', '/auth/change-password', { client: latest, cookies: { session: latest.refreshToken }, bearer: latest.accessToken, body: { currentPassword: NEW_PASSWORD, password: PASSWORD, confirmedPassword: PASSWORD } })
    expect(res.status, await res.text()).toBe(200)
    const changed = await smtp.waitForMail((m) => recipients(m).includes(email) && /password was changed/.test(m.subject ?? ''))
    expect(changed.text).toMatch(/\d{2}:\d{2} \(America\/New_York\)/)
  })
})

describe('the time zone the owner chooses (POST /auth/profile)', () => {
  const setZone = (s: Session, body: Record<string, unknown>) => call(iam, 'POST', '/auth/profile', { client: s, cookies: { session: s.refreshToken }, bearer: s.accessToken, body })
  const zoneOf = async (s: Session) => ((await (await authedGet(iam, s, '/secret/accesstoken/metadata')).json()) as { timeZone: unknown }).timeZone
  /** A sign-in of `s` from a new device of its address whose browser names `zone`. */
  async function signInFrom(s: Session, zone: string): Promise<void> {
    const res = await call(iam, 'POST', '/login', { client: await newDevice(iam, { ip: s.ip }), body: { email: s.email, password: PASSWORD }, headers: { 'x-time-zone': zone } })
    expect(res.status, await res.text()).toBe(200)
  }

  it('stores the chosen zone in its runtime spelling, answers it beside the name and reads it back in the session', async () => {
    const user = await signUp('Europe/Berlin')
    expect(await zoneOf(user)).toBe('Europe/Berlin')
    const res = await setZone(user, { timeZone: 'america/new_york' })
    expect(res.status).toBe(200)
    expect(((await res.json()) as { data: unknown }).data).toEqual({ name: expect.any(String), locale: null, timeZone: 'America/New_York' })
    expect(await zoneOf(user)).toBe('America/New_York')
    // UTC and the current name of a renamed zone (which Intl.supportedValuesOf leaves out) are zones too
    for (const zone of ['UTC', 'Europe/Kyiv']) {
      const again = await setZone(user, { timeZone: zone })
      expect(((await again.json()) as { data: { timeZone: unknown } }).data.timeZone, zone).toBe(zone)
    }
  })

  it('refuses a zone Intl does not know with 400 time_zone_unsupported and changes nothing', async () => {
    const user = await signUp('Europe/Berlin')
    for (const timeZone of ['Mars/Olympus_Mons', '+01:00', 'Europe/Berlin; drop table users', 'Etc/Nowhere']) {
      const res = await setZone(user, { name: 'Changed Name', timeZone })
      expect(res.status, timeZone).toBe(400)
      const body = (await res.json()) as { code: unknown; fields?: Record<string, unknown> }
      expect(body.code, timeZone).toBe('time_zone_unsupported')
      expect(body.fields).toHaveProperty('timeZone')
    }
    // not a string, or longer than any zone name: the schema refuses it before the zone is looked up
    for (const timeZone of [42, 'A'.repeat(65)]) {
      const res = await setZone(user, { timeZone })
      expect(res.status).toBe(400)
      expect(((await res.json()) as { fields?: Record<string, unknown> }).fields).toHaveProperty('timeZone')
    }
    expect(await zoneOf(user)).toBe('Europe/Berlin')
    const metadata = (await (await authedGet(iam, user, '/secret/accesstoken/metadata')).json()) as { name: unknown }
    expect(metadata.name).not.toBe('Changed Name')
  })

  it('keeps a chosen zone when a later sign-in names another browser zone, and the mails say it', async () => {
    const user = await signUp('Europe/Berlin')
    expect((await setZone(user, { timeZone: 'Asia/Kathmandu' })).status).toBe(200)
    await signInFrom(user, 'America/New_York')
    expect(await zoneOf(user)).toBe('Asia/Kathmandu')
    const { text, sentAt } = await passwordNoticeOf(user)
    const shown = /(\d{2}:\d{2}) \(Asia\/Kathmandu\)/.exec(text)
    expect(shown, text).not.toBeNull()
    expect(clockIn('Asia/Kathmandu', sentAt)).toContain(shown![1])
  })

  it('forgets the choice with null: the answer says null and the next sign-in names the zone again', async () => {
    const user = await signUp('Europe/Berlin')
    expect((await setZone(user, { timeZone: 'Asia/Kathmandu' })).status).toBe(200)
    const res = await setZone(user, { timeZone: null })
    expect(res.status).toBe(200)
    expect(((await res.json()) as { data: { timeZone: unknown } }).data.timeZone).toBeNull()
    expect(await zoneOf(user)).toBeNull()
    await signInFrom(user, 'America/New_York')
    expect(await zoneOf(user)).toBe('America/New_York')
  })
})
