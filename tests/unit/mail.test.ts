import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { configSchema } from '../../iam/lib/config-schema'
import { createLogger } from '../../shared/log'
import { createMailer } from '../../iam/features/mail/mailer'
import { customActionMail } from '../../iam/features/mail/templates'
import { recipients, startSmtp, type SmtpCapture } from '../helpers/smtp'

const content = customActionMail({
  siteName: 'Acme',
  locale: 'en',
  link: 'http://127.0.0.1:3000/auth/confirm?token=t&random=r&reason=PAY&visitor=v',
  code: '1234567',
  codeTtlMs: 420_000,
  reason: 'PAY',
  note: 'a < b & "c"',
})

describe('mailer over SMTP', () => {
  let smtp: SmtpCapture
  beforeAll(async () => {
    smtp = await startSmtp({ auth: { user: 'iam', pass: 'secret-pass' } })
  })
  afterAll(() => smtp.stop())

  it('delivers a text and an HTML part with authentication', async () => {
    const config = configSchema.parse({ email: { from: 'Acme <no-reply@acme.test>', smtp: { host: '127.0.0.1', port: smtp.port, auth: { user: 'iam', pass: 'secret-pass' } } } })
    const mailer = createMailer({ config, log: createLogger('silent'), production: false })
    expect(mailer.kind).toBe('smtp')
    await mailer.send({ to: 'jane@example.com', content })
    const mail = await smtp.waitForMail((m) => recipients(m).includes('jane@example.com'))
    expect(mail.subject).toBe(content.subject)
    expect(mail.text).toContain('1234567')
    expect(mail.html).toContain('a &#60; b &#38; &#34;c&#34;')
    expect(mail.from?.text).toContain('no-reply@acme.test')
  })

  it('rejects when the SMTP server refuses the credentials', async () => {
    const config = configSchema.parse({ email: { smtp: { host: '127.0.0.1', port: smtp.port, auth: { user: 'iam', pass: 'wrong' } } } })
    const mailer = createMailer({ config, log: createLogger('silent'), production: false })
    await expect(mailer.send({ to: 'jane@example.com', content })).rejects.toThrow()
  })
})

describe('mailer outbox (no SMTP configured)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'mail-outbox-'))
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

  const run = async (production: boolean) => {
    const lines: string[] = []
    const config = configSchema.parse({ service: { dataDir } })
    const mailer = createMailer({ config, log: createLogger('info', {}, (l) => lines.push(l)), production })
    expect(mailer.kind).toBe('outbox')
    await mailer.send({ to: 'jane@example.com', content, links: ['http://127.0.0.1:3000/x?token=t'] })
    return lines
  }

  it('writes an .eml file and logs its links but never the code', async () => {
    const lines = await run(false)
    const files = readdirSync(join(dataDir, 'mail'))
    expect(files).toHaveLength(1)
    expect(files[0]).toMatch(/^\d+-[0-9a-f]{8}\.eml$/)
    const eml = readFileSync(join(dataDir, 'mail', files[0]!), 'utf8')
    expect(eml).toContain('To: jane@example.com')
    expect(eml).toContain('text/html')
    expect(lines.join('\n')).toContain('http://127.0.0.1:3000/x?token=t')
    expect(lines.join('\n')).not.toContain('1234567')
  })

  it('logs nothing about the links in production', async () => {
    const lines = await run(true)
    expect(lines.join('\n')).not.toContain('token=t')
  })
})
