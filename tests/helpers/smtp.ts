/**
 * A real SMTP server on 127.0.0.1 (smtp-server + mailparser) that keeps every mail it accepts, so
 * tests read what the IAM sent over the wire. Port 0: the OS picks a free port.
 */
import { simpleParser, type ParsedMail } from 'mailparser'
import { SMTPServer } from 'smtp-server'

export type { ParsedMail }

export interface SmtpCapture {
  port: number
  /** smtp://127.0.0.1:port (with user:pass@ when auth is required) */
  url: string
  mails: ParsedMail[]
  /** Resolves with the first captured mail (already received or arriving later) matching `predicate`. */
  waitForMail(predicate?: (mail: ParsedMail) => boolean, timeoutMs?: number): Promise<ParsedMail>
  stop(): Promise<void>
}

export interface SmtpOptions {
  /** require AUTH PLAIN/LOGIN with these credentials */
  auth?: { user: string; pass: string }
  /** called with each mail as it is captured */
  onMail?: (mail: ParsedMail) => void
}

/** The text of a mail's `to` header(s), for predicates: "a@example.com, b@example.com". */
export function recipients(mail: ParsedMail): string {
  const to = mail.to
  if (!to) return ''
  return (Array.isArray(to) ? to : [to]).map((a) => a.text).join(', ')
}

export async function startSmtp(options: SmtpOptions = {}): Promise<SmtpCapture> {
  const mails: ParsedMail[] = []
  const waiters: Array<{ predicate: (m: ParsedMail) => boolean; resolve: (m: ParsedMail) => void }> = []
  const server = new SMTPServer({
    secure: false,
    disabledCommands: options.auth ? ['STARTTLS'] : ['STARTTLS', 'AUTH'],
    authOptional: !options.auth,
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, callback) {
      if (options.auth && auth.username === options.auth.user && auth.password === options.auth.pass) {
        callback(null, { user: auth.username })
      } else {
        callback(new Error('Invalid username or password'))
      }
    },
    onData(stream, _session, callback) {
      simpleParser(stream)
        .then((mail) => {
          mails.push(mail)
          options.onMail?.(mail)
          for (const waiter of [...waiters]) {
            if (waiter.predicate(mail)) {
              waiters.splice(waiters.indexOf(waiter), 1)
              waiter.resolve(mail)
            }
          }
          callback()
        })
        .catch((error: Error) => callback(error))
    },
  })
  const port = await new Promise<number>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.server.address()
      resolve(typeof address === 'object' && address ? address.port : 0)
    })
  })
  const credentials = options.auth
    ? `${encodeURIComponent(options.auth.user)}:${encodeURIComponent(options.auth.pass)}@`
    : ''
  return {
    port,
    url: `smtp://${credentials}127.0.0.1:${port}`,
    mails,
    waitForMail(predicate = () => true, timeoutMs = 10_000) {
      const found = mails.find(predicate)
      if (found) return Promise.resolve(found)
      return new Promise<ParsedMail>((resolve, reject) => {
        const waiter = {
          predicate,
          resolve: (mail: ParsedMail) => {
            clearTimeout(timer)
            resolve(mail)
          },
        }
        const timer = setTimeout(() => {
          waiters.splice(waiters.indexOf(waiter), 1)
          reject(new Error(`no matching mail within ${timeoutMs} ms (${mails.length} captured)`))
        }, timeoutMs)
        waiters.push(waiter)
      })
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

/** The verification mail every signup sends: tests of other flows skip it. */
export const isVerificationMail = (mail: ParsedMail): boolean => (mail.text ?? '').includes('reason=EMAIL_VERIFICATION&')

/** The first link of a mail's text part that carries a `token` query (a magic link). */
export function magicLinkOf(mail: ParsedMail): URL {
  const match = /(https?:\/\/\S+\?token=\S+)/.exec(mail.text ?? '')
  if (!match) throw new Error(`no magic link in mail "${mail.subject}"`)
  return new URL(match[1]!)
}

/** The 7-digit code of a mail's text part. */
export function codeOf(mail: ParsedMail): string {
  const match = /Your code: (\d{7})/.exec(mail.text ?? '')
  if (!match) throw new Error(`no code in mail "${mail.subject}"`)
  return match[1]!
}

/** `?token&random&reason&visitor` of a magic link, to append to an IAM route. */
export const linkQueryOf = (mail: ParsedMail): string => magicLinkOf(mail).search
