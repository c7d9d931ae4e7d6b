/**
 * The proof-of-work check (config botChallenge, features/bot-challenge/bot-proof.ts) over HTTP:
 * sign-up, password reset and email sign-in refuse a request without a solved challenge, and a
 * solution is checked for forgery, expiry and reuse. The tests solve challenges as a browser does,
 * with altcha-lib's solver (Web Crypto), at the smallest cost the configuration allows.
 */
import { solveChallenge } from 'altcha-lib/v1'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, newDevice, PROXY_CONFIG, signupBody, uniqueEmail, type Client } from '../helpers/accounts'
import { advanceClock, CLOCK_ENV } from '../helpers/clock'
import { startIam, type IamServer, type Json } from '../helpers/iam-server'
import { recipients, startSmtp, type SmtpCapture } from '../helpers/smtp'

const EXPIRES_IN_MS = 60_000
let iam: IamServer
let smtp: SmtpCapture
beforeAll(async () => {
  smtp = await startSmtp()
  iam = await startIam({
    config: {
      ...PROXY_CONFIG,
      botChallenge: { enabled: true, maxNumber: 1000, expiresInMs: EXPIRES_IN_MS },
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

  it('bot drill: 200 scripted sign-ups without solving make no account and send no mail', async () => {
    const client = await newDevice(iam, { ip: '198.51.100.44' })
    const emails = Array.from({ length: 200 }, () => uniqueEmail('drill'))
    const answers = new Map<string, number>()
    for (const email of emails) {
      const [status, code] = await refusal(await signup(client, email))
      answers.set(`${status} ${String(code)}`, (answers.get(`${status} ${String(code)}`) ?? 0) + 1)
    }
    expect([...answers]).toEqual([['400 bot_check_required', 200]])
    // none of the addresses has an account: each can still sign up (with a solved check)
    const probe = emails[199]!
    expect((await signup(client, probe, await solve(client))).status).toBe(201)
    const drilled = new Set(emails.slice(0, 199))
    expect(smtp.mails.filter((m) => [...drilled].some((e) => recipients(m).includes(e)))).toHaveLength(0)
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
})
