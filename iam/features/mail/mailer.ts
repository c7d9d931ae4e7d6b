/**
 * The mailer: SMTP through nodemailer when `email.smtp` is set (SMTP_URL overrides it), otherwise
 * the dev outbox: every mail is written to <dataDir>/mail/<time>-<id>.eml and, outside production,
 * its links are logged so a newcomer can follow them. Codes are never logged.
 */
import { randomBytes } from 'node:crypto'
import { mkdir, writeFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import type { Kysely } from 'kysely'
import { createTransport } from 'nodemailer'
import type { Database } from '../../db/schema'
import type { IamConfig } from '../../lib/config-schema'
import type { Logger } from '../../../shared/log'
import { withSpan } from '../../../shared/tracing'
import { findMailOverride } from './overrides-repo'
import type { LocalizedMail, MailContent } from './templates'

export interface OutgoingMail {
  to: string
  /** a catalogue mail (LocalizedMail) gets the administrator's words for its kind and language, when stored */
  content: MailContent | LocalizedMail
  /** the links in the mail, for the dev outbox log */
  links?: string[]
}

export interface Mailer {
  readonly kind: 'smtp' | 'outbox'
  /** Resolves once the mail was accepted (SMTP) or written (outbox); rejects on failure. */
  send(mail: OutgoingMail): Promise<void>
  /** Resolves when the SMTP server greets and accepts our login within `timeoutMs` (outbox: at once). */
  verify(timeoutMs: number): Promise<void>
}

export interface MailerDeps {
  config: Pick<IamConfig, 'email' | 'service'>
  log: Logger
  production: boolean
  /** an administrator's words for a mail in a language (overrides-repo.ts); none when absent */
  overrideTexts?: (mail: LocalizedMail) => Promise<Record<string, string> | null>
}

const isLocalized = (content: MailContent | LocalizedMail): content is LocalizedMail => 'withTexts' in content

/**
 * The parts as sent: a catalogue mail rendered again with an administrator's words and the team's
 * brand (`email.brand`), when there are any. A failed look-up sends the catalogue's words (logged):
 * the mail matters more than its wording.
 */
async function partsOf(deps: MailerDeps, content: MailContent | LocalizedMail): Promise<MailContent> {
  const { brand } = deps.config.email
  if (!isLocalized(content) || (!deps.overrideTexts && !brand)) return { subject: content.subject, text: content.text, html: content.html }
  const texts = deps.overrideTexts
    ? await deps.overrideTexts(content).catch((error: Error) => {
        deps.log.error('mail override not read: the catalogue text is sent', { kind: content.kind, locale: content.locale, error: error.message })
        return null
      })
    : null
  const parts = texts || brand ? content.renderWith({ texts, brand }) : content
  return { subject: parts.subject, text: parts.text, html: parts.html }
}

/** Keeps a transient SMTP outage from hanging a request for minutes (nodemailer's defaults). */
const SMTP_TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 }

export function createMailer(deps: MailerDeps): Mailer {
  const { config, log, production } = deps
  const { smtp, from } = config.email
  if (smtp) {
    const options = {
      host: smtp.host,
      port: smtp.port,
      secure: smtp.secure,
      ...(smtp.auth ? { auth: { user: smtp.auth.user, pass: smtp.auth.pass } } : {}),
    }
    const transport = createTransport({ ...options, ...SMTP_TIMEOUTS })
    return {
      kind: 'smtp',
      async send(mail) {
        // a span when tracing is on (shared/tracing.ts): the transport only, never the recipient
        await withSpan('mail send', { 'iam.mail.transport': 'smtp' }, async () => {
          await transport.sendMail({ from, to: mail.to, ...(await partsOf(deps, mail.content)) })
        })
      },
      async verify(timeoutMs) {
        // its own short-lived transport: the sending one keeps its longer timeouts
        const probe = createTransport({ ...options, connectionTimeout: timeoutMs, greetingTimeout: timeoutMs, socketTimeout: timeoutMs })
        try {
          await probe.verify()
        } finally {
          probe.close()
        }
      },
    }
  }
  const dir = resolve(join(config.service.dataDir, 'mail'))
  const composer = createTransport({ streamTransport: true, buffer: true, newline: 'unix' })
  return {
    kind: 'outbox',
    send: (mail) => withSpan('mail send', { 'iam.mail.transport': 'outbox' }, () => writeToOutbox(mail)),
    verify: async () => {},
  }

  async function writeToOutbox(mail: OutgoingMail): Promise<void> {
    const content = await partsOf(deps, mail.content)
    const info = await composer.sendMail({ from, to: mail.to, ...content })
    await mkdir(dir, { recursive: true })
    const file = join(dir, `${Date.now()}-${randomBytes(4).toString('hex')}.eml`)
    await writeFile(file, info.message as Buffer, { mode: 0o600 })
    // Dev convenience only: in production the outbox is a file drop, never a log of live links.
    if (!production) log.info('mail written to the outbox', { file, subject: content.subject, links: mail.links ?? [] })
  }
}

const mailers = new WeakMap<object, Mailer>()

/** The mailer of a booted context, built once per context. */
export function getMailer(ctx: { config: MailerDeps['config']; log: Logger; db?: Kysely<Database> }): Mailer {
  let mailer = mailers.get(ctx)
  if (!mailer) {
    // read at run time: the bundler would inline a literal `process.env.NODE_ENV`
    const production = process.env['NODE_ENV'] === 'production'
    const { db } = ctx
    const overrideTexts = db ? async (mail: LocalizedMail) => (await findMailOverride(db, mail.kind, mail.locale))?.texts ?? null : undefined
    mailer = createMailer({ config: ctx.config, log: ctx.log, production, ...(overrideTexts ? { overrideTexts } : {}) })
    mailers.set(ctx, mailer)
  }
  return mailer
}
