/**
 * The proof-of-work check (config botChallenge, features/bot-challenge/bot-proof.ts) over HTTP:
 * sign-up, password reset and email sign-in refuse a request without a solved challenge, and a
 * solution is checked for forgery, expiry and reuse. The tests solve challenges as a browser does,
 * with altcha-lib's solver (Web Crypto), at the smallest cost the configuration allows.
 */
import { solveChallenge } from 'altcha-lib/v1'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, newDevice, PROXY_CONFIG, signupBody, STRONG_PASSWORD, uniqueEmail, type Client } from '../helpers/accounts'
import { advanceClock, CLOCK_ENV } from '../helpers/clock'
import { startIam, type IamServer, type Json } from '../helpers/iam-server'
import { moved, scrapeMetrics } from '../helpers/prometheus'
import { codeOf, recipients, startSmtp, type SmtpCapture } from '../helpers/smtp'

const EXPIRES_IN_MS = 60_000
let iam: IamServer
let smtp: SmtpCapture
beforeAll(async () => {
  smtp = await startSmtp()
  iam = await startIam({
    config: {
      ...PROXY_CONFIG,
      botChallenge: { enabled: true, maxNumber: 1000, expiresInMs: EXPIRES_IN_MS, loginAfterFailures: 3 },
      signIn: { emailLink: true, emailCode: true },
      rate_limiters: { signup: { points: 1000, duration: 3600, blockDuration: 3600 }, forgotPassword: { points: 1000, duration: 3600, blockDuration: 3600 } },
    },
    env: { ...CLOCK_ENV, SMTP_URL: smtp.url },
  })
}, 180_000)
afterAll(async () => {
  await iam?.stop()
  await smtp?.stop()
})

interface AltchaChallenge {
  algorithm: string
  challenge: string
  maxnumber: number
  salt: string
  signature: string
}

async function challengeFor(client: Client): Promise<AltchaChallenge> {
  const res = await call(iam, 'GET', '/auth/bot-challenge', { client })
  const body = (await res.json()) as Json
  expect(res.status).toBe(200)
  const data = body.data as { enabled: boolean; challenge: AltchaChallenge }
  expect(data.enabled).toBe(true)
  return data.challenge
}

const encode = (payload: Record<string, unknown>) => Buffer.from(JSON.stringify(payload)).toString('base64')

/** Solves a challenge as the page does and returns the `botProof` it would send. */
async function solve(client: Client): Promise<string> {
  const c = await challengeFor(client)
  const solution = await solveChallenge(c.challenge, c.salt, c.algorithm, c.maxnumber).promise
  if (!solution) throw new Error('no solution found')
  return encode({ algorithm: c.algorithm, challenge: c.challenge, number: solution.number, salt: c.salt, signature: c.signature })
}

const signup = (client: Client, email: string, botProof?: string) => call(iam, 'POST', '/signup', { client, body: { ...signupBody(email), ...(botProof ? { botProof } : {}) } })

async function refusal(res: Response): Promise<[number, unknown, unknown]> {
  const body = (await res.json()) as Json
  return [res.status, body.code, body.botCheck]
}

describe('the bot check on sign-up', () => {
  it('refuses a sign-up without a solved check with a declared code, and accepts one with it', async () => {
    const client = await newDevice(iam, { ip: '198.51.100.40' })
    const email = uniqueEmail('bot')
    expect(await refusal(await signup(client, email))).toEqual([400, 'bot_check_required', 'missing'])
    const res = await signup(client, email, await solve(client))
    expect(res.status, await res.clone().text()).toBe(201)
  })

  it('refuses a solution used a second time', async () => {
    const client = await newDevice(iam, { ip: '198.51.100.41' })
    const proof = await solve(client)
    expect((await signup(client, uniqueEmail('first'), proof)).status).toBe(201)
    expect(await refusal(await signup(client, uniqueEmail('second'), proof))).toEqual([400, 'bot_check_failed', 'replayed'])
  })

  it('refuses a solution whose challenge expired', async () => {
    const client = await newDevice(iam, { ip: '198.51.100.42' })
    const proof = await solve(client)
    await advanceClock(iam, EXPIRES_IN_MS + 1000)
    expect(await refusal(await signup(client, uniqueEmail('late'), proof))).toEqual([400, 'bot_check_failed', 'expired'])
  })

  it('refuses forged solutions: a wrong number, a changed expiry, a challenge signed by someone else, garbage', async () => {
    const client = await newDevice(iam, { ip: '198.51.100.43' })
    const c = await challengeFor(client)
    const solution = (await solveChallenge(c.challenge, c.salt, c.algorithm, c.maxnumber).promise)!
    const right = { algorithm: c.algorithm, challenge: c.challenge, number: solution.number, salt: c.salt, signature: c.signature }
    const later = c.salt.replace(/expires=(\d+)/, (_m, s: string) => `expires=${Number(s) + 86_400}`)
    const forgeries = [
      encode({ ...right, number: (solution.number + 1) % 1000 }),
      encode({ ...right, salt: later }),
      encode({ ...right, signature: 'a'.repeat(64) }),
      'not base64 json at all',
    ]
    for (const proof of forgeries) expect(await refusal(await signup(client, uniqueEmail('forged'), proof))).toEqual([400, 'bot_check_failed', 'invalid'])
    // the right one still works afterwards: forgeries spend nothing
    expect((await signup(client, uniqueEmail('honest'), encode(right))).status).toBe(201)
  })

  it('bot drill: 1,000 scripted sign-ups without solving make no account and send no mail', async () => {
    const client = await newDevice(iam, { ip: '198.51.100.44' })
    const emails = Array.from({ length: 1000 }, () => uniqueEmail('drill'))
    const answers = new Map<string, number>()
    const before = await scrapeMetrics(iam.url)
    // ten at a time, as a script would run them; each refusal is one hash-free answer, so the drill stays short
    for (let at = 0; at < emails.length; at += 10) {
      const batch = await Promise.all(emails.slice(at, at + 10).map(async (email) => refusal(await signup(client, email))))
      for (const [status, code] of batch) answers.set(`${status} ${String(code)}`, (answers.get(`${status} ${String(code)}`) ?? 0) + 1)
    }
    const after = await scrapeMetrics(iam.url)
    expect([...answers]).toEqual([['400 bot_check_required', 1000]])
    expect(moved(before, after, 'iam_security_events_total', { type: 'signed_up' })).toBe(0)
    // none of the addresses has an account: each can still sign up (with a solved check)
    const probe = emails[999]!
    expect((await signup(client, probe, await solve(client))).status).toBe(201)
    const drilled = new Set(emails.slice(0, 999))
    expect(smtp.mails.filter((m) => [...drilled].some((e) => recipients(m).includes(e)))).toHaveLength(0)
  })

  it('bot drill: a solved challenge costs the script about maxNumber / 2 hashes per attempt (measured and printed)', async () => {
    const client = await newDevice(iam, { ip: '198.51.100.46' })
    const SOLVED = 200
    const SIGNUPS = 10
    const hashes: number[] = []
    for (let i = 0; i < SOLVED; i++) {
      const proof = await solve(client)
      // the solver tries 0, 1, 2 ... up to the secret number: that many hashes plus one
      hashes.push((JSON.parse(Buffer.from(proof, 'base64').toString('utf8')) as { number: number }).number + 1)
      if (i < SIGNUPS) expect((await signup(client, uniqueEmail('paid'), proof)).status).toBe(201)
    }
    const mean = hashes.reduce((a, b) => a + b, 0) / hashes.length
    const maxNumber = 1000
    console.log(`bot drill: ${SOLVED} solved challenges (maxNumber ${maxNumber}): ${mean.toFixed(1)} hashes per attempt on average, expected about ${maxNumber / 2}; at the default maxNumber 100000 that is about 50000 per attempt`)
    expect(hashes.every((n) => n >= 1 && n <= maxNumber + 1)).toBe(true)
    // uniform over 0..maxNumber: the mean of 200 lies within a quarter of the range of the middle by a very wide margin (about 12 standard deviations)
    expect(mean).toBeGreaterThan(maxNumber / 4)
    expect(mean).toBeLessThan((3 * maxNumber) / 4)
  })
})

describe('the bot check on the mails a stranger can ask for', () => {
  it('refuses a password reset and an email sign-in without a solved check, and accepts them with one', async () => {
    const client = await newDevice(iam, { ip: '198.51.100.45' })
    const email = uniqueEmail('mailer')
    const forgot = (botProof?: string) => call(iam, 'POST', '/auth/forgot-password', { client, body: { email, ...(botProof ? { botProof } : {}) } })
    const emailMe = (botProof?: string) => call(iam, 'POST', '/auth/email-sign-in', { client, body: { email, method: 'link', ...(botProof ? { botProof } : {}) } })
    expect(await refusal(await forgot())).toEqual([400, 'bot_check_required', 'missing'])
    expect(await refusal(await emailMe())).toEqual([400, 'bot_check_required', 'missing'])
    expect((await forgot(await solve(client))).status).toBe(200)
    expect((await emailMe(await solve(client))).status).toBe(200)
  })

  it('refuses a sign-up with a passkey without a solved check, as POST /signup, and accepts one with it', async () => {
    const client = await newDevice(iam, { ip: '198.51.100.46' })
    const start = (botProof?: string) =>
      call(iam, 'POST', '/auth/passkey-signup/start', { client, body: { email: uniqueEmail('pk-bot'), name: 'Ada', termsConsent: 'on', ...(botProof ? { botProof } : {}) } })
    expect(await refusal(await start())).toEqual([400, 'bot_check_required', 'missing'])
    expect((await start(await solve(client))).status).toBe(200)
  })
})

describe('the bot check on password sign-in after failures', () => {
  const login = (client: Client, email: string, password: string, botProof?: string) =>
    call(iam, 'POST', '/login', { client, body: { email, password, ...(botProof ? { botProof } : {}) } })
  const WRONG = 'not the password at all'

  async function account(ip: string): Promise<string> {
    const client = await newDevice(iam, { ip })
    const email = uniqueEmail('signer')
    expect((await signup(client, email, await solve(client))).status).toBe(201)
    return email
  }

  it('asks for no check below the threshold: an ordinary sign-in costs one read and one write, as without the check', async () => {
    const email = await account('198.51.100.50')
    const client = await newDevice(iam, { ip: '198.51.100.51' })
    // the sign-up's mail is written after its answer: counting starts once it is out
    await smtp.waitForMail((mail) => recipients(mail).includes(email))
    const before = await scrapeMetrics(iam.url)
    const res = await login(client, email, STRONG_PASSWORD)
    expect(res.status, await res.clone().text()).toBe(200)
    const after = await scrapeMetrics(iam.url)
    const statements = (kind: string) => moved(before, after, 'iam_db_statements_total', { kind })
    expect([statements('read'), statements('write'), statements('transaction')]).toEqual([1, 1, 0])
  })

  it('asks for a solved check once an address has failed three times, from any IP, for a known and an unknown address alike', async () => {
    const known = await account('198.51.100.52')
    const unknown = uniqueEmail('nobody')
    for (const email of [known, unknown]) {
      const guesser = await newDevice(iam, { ip: email === known ? '198.51.100.53' : '198.51.100.59' })
      for (let i = 0; i < 3; i++) expect((await login(guesser, email, WRONG)).status).toBe(401)
      // another IP, another device: the address's failures ask for the check
      const owner = await newDevice(iam, { ip: email === known ? '198.51.100.54' : '198.51.100.55' })
      expect(await refusal(await login(owner, email, STRONG_PASSWORD))).toEqual([400, 'bot_check_required', 'missing'])
      expect(await refusal(await login(owner, email, STRONG_PASSWORD, 'garbage'))).toEqual([400, 'bot_check_failed', 'invalid'])
      const solved = await login(owner, email, STRONG_PASSWORD, await solve(owner))
      expect(solved.status).toBe(email === known ? 200 : 401)
    }
  })

  it('asks for a solved check once an IP has failed three times, whichever addresses it tried', async () => {
    const email = await account('198.51.100.56')
    const client = await newDevice(iam, { ip: '198.51.100.57' })
    for (let i = 0; i < 3; i++) expect((await login(client, uniqueEmail('spray'), WRONG)).status).toBe(401)
    expect(await refusal(await login(client, email, STRONG_PASSWORD))).toEqual([400, 'bot_check_required', 'missing'])
    expect((await login(client, email, STRONG_PASSWORD, await solve(client))).status).toBe(200)
  })

  it('counts no sign-in by emailed code as a failure of the IP: three of them ask nothing of the password sign-in after them', async () => {
    const email = await account('198.51.100.60')
    const client = await newDevice(iam, { ip: '198.51.100.61' })
    for (let i = 0; i < 3; i++) {
      const asked = await call(iam, 'POST', '/auth/email-sign-in', { client, body: { email, method: 'code', botProof: await solve(client) } })
      expect(asked.status).toBe(200)
      const mail = await smtp.waitForMail((m) => recipients(m).includes(email) && (m.subject ?? '').includes('sign-in link') && !used.has(codeOf(m)))
      used.add(codeOf(mail))
      const res = await call(iam, 'POST', '/auth/email-sign-in/code', { client, body: { email, code: codeOf(mail) } })
      expect(res.status, await res.clone().text()).toBe(200)
    }
    // (the first sign-in by mail dropped the password the sign-up chose: a password sign-in to another address, answered, not asked for a check)
    expect((await login(client, uniqueEmail('other'), WRONG)).status).toBe(401)
  })
  const used = new Set<string>()

  it('refuses a solution used a second time on sign-in', async () => {
    const client = await newDevice(iam, { ip: '198.51.100.58' })
    const email = uniqueEmail('replay')
    for (let i = 0; i < 3; i++) expect((await login(client, email, WRONG)).status).toBe(401)
    const proof = await solve(client)
    expect((await login(client, email, WRONG, proof)).status).toBe(401)
    expect(await refusal(await login(client, email, WRONG, proof))).toEqual([400, 'bot_check_failed', 'replayed'])
  })
})
