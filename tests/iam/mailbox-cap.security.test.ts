/**
 * rate_limiters.mailbox: reset and verification link mails to one address are capped over every
 * client together (default 5 an hour), so that many IPs, each under its own limits, cannot flood
 * one mailbox. Over the cap the routes answer exactly as under it (forgot-password: the one fixed
 * body, whatever the address) and just send nothing; the window's end lets mails through again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, newDevice, PROXY_CONFIG, signupUser, type Client, type Session } from '../helpers/accounts'
import { advanceClock, CLOCK_ENV } from '../helpers/clock'
import { startIam, type IamServer } from '../helpers/iam-server'
import { waitForLogs } from '../helpers/logs'
import { recipients, startSmtp, type SmtpCapture } from '../helpers/smtp'
import { waitUntil } from '../helpers/wait'

const START_TIMEOUT_MS = 180_000
const FIXED_BODY = '{"ok":true,"message":"If an account exists for this address, a password reset link has been sent."}'
const CAP = 5
const CAPPED_LINE = 'the address reached rate_limiters.mailbox'

let iam: IamServer
let smtp: SmtpCapture
beforeAll(async () => {
  smtp = await startSmtp()
  iam = await startIam({ config: { ...PROXY_CONFIG, email: { siteName: 'Acme' } }, env: { SMTP_URL: smtp.url, ...CLOCK_ENV } })
}, START_TIMEOUT_MS)
afterAll(async () => {
  await iam?.stop()
  await smtp?.stop()
})

let nextHost = 10
/** A device at an address of its own: each one is under every per-IP limit. */
const freshClient = (): Promise<Client> => newDevice(iam, { ip: `198.51.100.${nextHost++}` })
const mailsTo = (email: string) => smtp.mails.filter((m) => recipients(m).includes(email))
const cappedLines = (userId: number) => (line: string) => line.includes(CAPPED_LINE) && line.includes(`"userId":${userId}`)
const forgot = async (email: string) => call(iam, 'POST', '/auth/forgot-password', { client: await freshClient(), body: { email } })

async function userIdOf(user: Session): Promise<number> {
  const res = await call(iam, 'GET', '/secret/data', { client: user, cookies: { session: user.refreshToken }, bearer: user.accessToken })
  return ((await res.json()) as { userId: number }).userId
}

describe('the per-address cap of link mails (rate_limiters.mailbox)', () => {
  it('sends at most 5 reset and verification mails an hour to one address, however many IPs ask, answering every request as under the cap', async () => {
    const user = await signupUser(iam, { client: await freshClient() })
    const userId = await userIdOf(user)
    await waitUntil(() => mailsTo(user.email).length === 1, 'the sign-up verification mail')

    // 8 requests from 8 IPs, the address typed in other cases and with spaces: 4 fit beside the sign-up's mail
    const variants = [user.email, user.email.toUpperCase(), `  ${user.email}  `, user.email.replace(/^./, (c) => c.toUpperCase())]
    const answers = []
    for (let i = 0; i < 8; i++) {
      const res = await forgot(variants[i % variants.length]!)
      answers.push({ status: res.status, body: await res.text() })
    }
    expect(answers).toEqual(Array.from({ length: 8 }, () => ({ status: 200, body: FIXED_BODY })))
    await waitForLogs(iam, cappedLines(userId), 8 - (CAP - 1), 'of capped reset mails')
    await waitUntil(() => mailsTo(user.email).length >= CAP, 'the admitted mails')
    expect(mailsTo(user.email)).toHaveLength(CAP)

    // resend-verification answers as it does when it sends, and sends nothing
    const resend = await call(iam, 'POST', '/auth/resend-verification', { client: user, cookies: { session: user.refreshToken }, bearer: user.accessToken })
    expect(resend.status).toBe(200)
    await waitForLogs(iam, cappedLines(userId), 8 - (CAP - 1) + 1, 'of the capped verification mail')
    expect(mailsTo(user.email)).toHaveLength(CAP)

    // another address keeps its own budget
    const other = await signupUser(iam, { client: await freshClient() })
    expect((await forgot(other.email)).status).toBe(200)
    await waitUntil(() => mailsTo(other.email).length === 2, "the other address's verification and reset mails")
  })

  it('lets mails to the address through again once the hour is over', async () => {
    const user = await signupUser(iam, { client: await freshClient() })
    const userId = await userIdOf(user)
    for (let i = 0; i < CAP; i++) expect((await forgot(user.email)).status).toBe(200)
    await waitForLogs(iam, cappedLines(userId), 1, 'of a capped mail')
    await waitUntil(() => mailsTo(user.email).length >= CAP, 'the admitted mails')
    expect(mailsTo(user.email)).toHaveLength(CAP)

    await advanceClock(iam, 3_600_000)
    expect((await forgot(user.email)).status).toBe(200)
    await waitUntil(() => mailsTo(user.email).length === CAP + 1, 'a reset mail after the window')
  })
})
