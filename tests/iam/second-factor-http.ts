/**
 * HTTP helpers for the second-factor tests: TOTP enrolment as a signed-in session, codes made in
 * the test with otpauth from the secret the IAM showed, and the two-step sign-in.
 *
 * Steps: enrolment takes the current 30 s step; a later use takes the next one (one step of drift
 * ahead is accepted), so two uses in a row work whichever side of a step boundary the test runs on.
 */
import { Secret, TOTP } from 'otpauth'
import { call, setCookieValue, type Client, type Session } from '../helpers/accounts'
import type { IamEndpoint, Json } from '../helpers/iam-server'

/** Limits wide enough that the second-factor rules are what the tests meet. */
export const WIDE_LOGIN = {
  rate_limiters: {
    signup: { points: 100_000, duration: 60, blockDuration: 60 },
    login: { points: 100_000, duration: 60, blockDuration: 60 },
    codes: { points: 100_000, duration: 60, blockDuration: 60 },
    loginAccountDelay: { freeAttempts: 100_000 },
  },
}

export const authed = (iam: IamEndpoint, s: Session, method: string, path: string, body?: unknown) =>
  call(iam, method, path, { client: s, cookies: { session: s.refreshToken }, bearer: s.accessToken, body })

/** The code of `secret` at the current step plus `stepOffset` steps of 30 s (`skewMs`: an IAM test clock's lead). */
export function totpCode(secret: string, stepOffset = 0, skewMs = 0): string {
  const totp = new TOTP({ algorithm: 'SHA1', digits: 6, period: 30, secret: Secret.fromBase32(secret) })
  return totp.generate({ timestamp: Date.now() + skewMs + stepOffset * 30_000 })
}

export interface Enrolment {
  secret: string
  otpauthUrl: string
  recoveryCodes: string[]
}

/** Setup and enable with the current step's code (`skewMs`: how far the IAM's test clock is ahead of this one). */
export async function enrolTotp(iam: IamEndpoint, s: Session, skewMs = 0): Promise<Enrolment> {
  const setup = await authed(iam, s, 'POST', '/auth/totp/setup')
  const setupBody = (await setup.json()) as Json
  if (setup.status !== 200) throw new Error(`setup answered ${setup.status}: ${JSON.stringify(setupBody)}`)
  const { secret, otpauthUrl } = setupBody.data as { secret: string; otpauthUrl: string }
  const enable = await authed(iam, s, 'POST', '/auth/totp/enable', { code: totpCode(secret, 0, skewMs) })
  const enableBody = (await enable.json()) as Json
  if (enable.status !== 200) throw new Error(`enable answered ${enable.status}: ${JSON.stringify(enableBody)}`)
  return { secret, otpauthUrl, recoveryCodes: (enableBody.data as { recoveryCodes: string[] }).recoveryCodes }
}

/** POST /login expecting the second-factor answer; the challenge. */
export async function passwordStep(iam: IamEndpoint, s: { email: string; password: string }, client: Client): Promise<string> {
  const res = await call(iam, 'POST', '/login', { client, body: { email: s.email, password: s.password } })
  const body = (await res.json()) as Json
  if (res.status !== 200 || !body.secondFactor) throw new Error(`login answered ${res.status}: ${JSON.stringify(body)}`)
  return (body.secondFactor as { challenge: string }).challenge
}

export const secondFactor = (iam: IamEndpoint, client: Client, challenge: string, code: string) =>
  call(iam, 'POST', '/auth/second-factor', { client, body: { challenge, code } })

/** The session a 200 from POST /auth/second-factor opened. */
export async function sessionOf(res: Response, s: { email: string; password: string }, client: Client): Promise<Session> {
  const body = (await res.json()) as Json
  const refreshToken = setCookieValue(res, 'session')
  if (res.status !== 200 || typeof body.accessToken !== 'string' || !refreshToken) throw new Error(`second factor answered ${res.status}: ${JSON.stringify(body)}`)
  return { ...client, email: s.email, password: s.password, accessToken: body.accessToken, refreshToken }
}
