/**
 * One IAM for every test file of a run that needs no config of its own (vitest globalSetup of the
 * iam project): starting an IAM (PGlite boot, migrations) costs seconds, so those files share it
 * instead of starting one each. Tests on it stay independent: fresh users, emails and devices per
 * test (signupUser, uniqueEmail). Its test routes are on (request rules, errors), but nobody moves
 * its clock: a file that moves time (tests/helpers/clock.ts) starts its own IAM.
 *
 * Its output goes to a file, so the files sharing it can read its log lines (`logs`) from their
 * own workers; those lines hold every file's requests, so match them by request id or content.
 */
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { inject } from 'vitest'
import type { TestProject } from 'vitest/node'
import { WIDE, WIDE_LIMITERS } from '../iam/api-tokens-http'
import { PROXY_CONFIG } from './accounts'
import { startIam, type IamEndpoint, type IamServer } from './iam-server'
import { startSmtp, type ParsedMail, type SmtpCapture } from './smtp'
import { waitUntil } from './wait'

export interface SharedIamInfo {
  url: string
  port: number
  share: IamServer['share']
  logFile: string
  /** the mails it sent (to the run's shared SMTP capture), one JSON line each */
  mailFile: string
}

declare module 'vitest' {
  export interface ProvidedContext {
    sharedIam: SharedIamInfo
  }
}

const WIDE_AUTH = Object.fromEntries(['signup', 'login', 'oauth', 'refresh', 'links', 'codes', 'forgotPassword', 'emails', 'mailbox'].map((name) => [name, WIDE]))

/**
 * The shared instance's config: the proxy header trusted (each test its own client IPs), the demo
 * OAuth provider, and limits so wide that files cannot limit each other (limiter tests start their own).
 * Settings one file asserts (the token issuer and audience: jwks; the TOTP issuer: totp) are set
 * here to values no other file on it depends on; the session velocity is raised so one user may
 * sign in 20 times (security-events) without the anomaly, which only files on their own IAM test.
 */
export const SHARED_IAM_CONFIG = {
  ...PROXY_CONFIG,
  providers: [{ name: 'demo', useStandardProfile: true }],
  email: { siteName: 'Acme' },
  jwt: {
    refresh_tokens: { maxAllowedSessionsPerUser: 50 },
    access_tokens: { issuer: 'https://iam.example', audience: 'https://app.example' },
  },
  anomalies: { velocity: { count: 50 } },
  secondFactor: { totp: { issuer: 'Acme Test' } },
  // the account's sign-in delay too: some files sign one account in 20 times at once
  rate_limiters: { apiTokensLimiters: WIDE_LIMITERS, ...WIDE_AUTH, loginAccountDelay: { freeAttempts: 100_000 } },
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dir = mkdtempSync(join(tmpdir(), 'iam-shared-'))
  const mailFile = join(dir, 'mails.jsonl')
  writeFileSync(mailFile, '')
  const smtp = await startSmtp({ onMail: (mail) => appendFileSync(mailFile, `${JSON.stringify(mail)}\n`) })
  const iam = await startIam({ config: SHARED_IAM_CONFIG, env: { IAM_TEST_ROUTES: '1', SMTP_URL: smtp.url } })
  const logFile = join(dir, 'iam.log')
  writeFileSync(logFile, iam.logs.map((line) => `${line}\n`).join(''))
  for (const stream of [iam.process.stdout, iam.process.stderr]) stream?.on('data', (chunk: Buffer) => appendFileSync(logFile, chunk))
  project.provide('sharedIam', { url: iam.url, port: iam.port, share: iam.share, logFile, mailFile })
  return async () => {
    await iam.stop()
    await smtp.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}

/** The run's shared IAM, from a test file. `logs` reads its output so far (complete lines only). */
export function sharedIam(): IamEndpoint {
  const { url, port, share, logFile } = inject('sharedIam')
  return {
    url,
    port,
    share,
    get logs() {
      const lines = readFileSync(logFile, 'utf8').split('\n')
      lines.pop()
      return lines
    },
  }
}

/**
 * The mails the shared IAM sent, from a test file: every file's mails, so match them by recipient
 * (each test its own address). Mails are read back from JSON (subject, to, text, html; no headers
 * Map or attachment buffers) and keep their identity across reads, for `new Set(smtp.mails)`.
 */
export function sharedSmtp(): Pick<SmtpCapture, 'mails' | 'waitForMail'> {
  const { mailFile } = inject('sharedIam')
  const mails: ParsedMail[] = []
  let readUpTo = 0
  const read = (): ParsedMail[] => {
    const text = readFileSync(mailFile, 'utf8')
    const complete = text.lastIndexOf('\n') + 1
    for (const line of text.slice(readUpTo, complete).split('\n')) if (line) mails.push(JSON.parse(line) as ParsedMail)
    readUpTo = complete
    return mails
  }
  return {
    get mails() {
      return read()
    },
    async waitForMail(predicate = () => true, timeoutMs = 10_000) {
      const hit: { mail?: ParsedMail } = {}
      await waitUntil(() => (hit.mail = read().find(predicate)) !== undefined, 'a matching mail', timeoutMs)
      if (!hit.mail) throw new Error('no matching mail')
      return hit.mail
    },
  }
}
