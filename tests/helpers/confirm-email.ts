/**
 * Confirming an account's address as its owner does: the verification link its signup mailed,
 * posted from the device that signed up (a link opened on another device also asks for the
 * password: features/account-actions/verify-email.ts). Adding a second factor or a passkey needs a
 * confirmed address, so tests of those flows confirm first.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { simpleParser } from 'mailparser'
import { call, signupUser, type Client, type Session } from './accounts'
import type { IamEndpoint } from './iam-server'
import { isVerificationMail, linkQueryOf, recipients, type ParsedMail, type SmtpCapture } from './smtp'
import { waitUntil } from './wait'

/** Where a test finds the IAM's mails: an SMTP capture (the shared IAM's) or the outbox of an IAM it started. */
export type MailSource = Pick<SmtpCapture, 'waitForMail'> | { dataDir: string }

async function outboxMail(dataDir: string, match: (mail: ParsedMail) => boolean): Promise<ParsedMail> {
  const dir = join(dataDir, 'mail')
  let found: ParsedMail | undefined
  await waitUntil(async () => {
    if (!existsSync(dir)) return false
    for (const name of readdirSync(dir).filter((n) => n.endsWith('.eml')).sort()) {
      const mail = await simpleParser(readFileSync(join(dir, name)))
      if (match(mail)) found = mail
    }
    return found !== undefined
  }, 'a mail in the outbox')
  return found!
}

/** The mail to `email` that `match` accepts (the newest, from an outbox). */
export function mailTo(source: MailSource, email: string, match: (mail: ParsedMail) => boolean): Promise<ParsedMail> {
  const wanted = (mail: ParsedMail) => recipients(mail).includes(email) && match(mail)
  return 'waitForMail' in source ? source.waitForMail(wanted) : outboxMail(source.dataDir, wanted)
}

/** `?token&...` of the verification link mailed to `email`. */
export async function verificationQuery(source: MailSource, email: string): Promise<string> {
  return linkQueryOf(await mailTo(source, email, isVerificationMail))
}

/** Posts the account's verification link from the session's own device. */
export async function confirmEmail(iam: IamEndpoint, s: Session, source: MailSource): Promise<void> {
  const query = await verificationQuery(source, s.email)
  const res = await call(iam, 'POST', `/auth/verify-email${query}`, { client: s })
  if (res.status !== 200) throw new Error(`verify-email answered ${res.status}: ${await res.text()}`)
}

/** signupUser, then the address confirmed from the same device. */
export async function signupConfirmed(
  iam: IamEndpoint,
  source: MailSource,
  opts: { client?: Partial<Client>; email?: string; password?: string; remember?: boolean } = {},
): Promise<Session> {
  const user = await signupUser(iam, opts)
  await confirmEmail(iam, user, source)
  return user
}
