/**
 * A team's brand in the mails (`email.brand`, iam/features/mail/templates.ts, mailer.ts): sent over
 * SMTP, the HTML part shows the logo with the site name as its alt text, buttons in the brand's
 * colour (also in dark mode) and a footer with the support address and legal pages; the plain-text
 * part carries the same links. Without a brand a mail is sent exactly as rendered.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { configSchema } from '../../iam/lib/config-schema'
import { createLogger } from '../../shared/log'
import { createMailer } from '../../iam/features/mail/mailer'
import { verifyEmailMail } from '../../iam/features/mail/templates'
import { recipients, startSmtp, type SmtpCapture } from '../helpers/smtp'

const BRAND = {
  logoUrl: 'https://cdn.acme.example/logo.png',
  primaryColor: '#7a1fa2',
  supportEmail: 'help@acme.example',
  legal: { termsUrl: 'https://acme.example/terms', privacyUrl: 'https://acme.example/privacy' },
}
const mail = (locale: 'en' | 'de') => verifyEmailMail({ siteName: 'Acme', locale, link: 'https://id.acme.example/auth/verify-email?token=t', linkTtlMs: 86_400_000 })

describe('branded mails', () => {
  let smtp: SmtpCapture
  beforeAll(async () => {
    smtp = await startSmtp({})
  })
  afterAll(() => smtp.stop())

  const send = async (to: string, brand: typeof BRAND | undefined, locale: 'en' | 'de' = 'en') => {
    const config = configSchema.parse({ email: { siteName: 'Acme', ...(brand ? { brand } : {}), smtp: { host: '127.0.0.1', port: smtp.port } } })
    await createMailer({ config, log: createLogger('silent'), production: false }).send({ to, content: mail(locale) })
    return smtp.waitForMail((m) => recipients(m).includes(to))
  }

  it('shows the logo, the button colour and the support and legal links in the HTML part', async () => {
    const sent = await send('brand-html@example.com', BRAND)
    const html = String(sent.html)
    expect(html).toContain('<img src="https://cdn.acme.example/logo.png" alt="Acme" height="40"')
    expect(html).toContain('class="mail-button" style="border-radius:6px;background:#7a1fa2"')
    expect(html).toContain('.mail-button { background: #7a1fa2 !important; }')
    expect(html).not.toContain('#1d4ed8')
    expect(html).toMatch(/<a href="mailto:help@acme\.example"[^>]*>Support<\/a> &middot; <a href="https:\/\/acme\.example\/terms"[^>]*>Terms<\/a> &middot; <a href="https:\/\/acme\.example\/privacy"[^>]*>Privacy<\/a>/)
  })

  it('carries the same links in the plain-text part', async () => {
    const sent = await send('brand-text@example.com', BRAND)
    expect(sent.text).toContain('-- \nAcme\nSupport: help@acme.example\nTerms: https://acme.example/terms\nPrivacy: https://acme.example/privacy')
  })

  it('names the links in the mail language', async () => {
    const sent = await send('brand-de@example.com', BRAND, 'de')
    expect(sent.text).toContain('Hilfe: help@acme.example\nNutzungsbedingungen: https://acme.example/terms\nDatenschutz: https://acme.example/privacy')
  })

  it('sends a mail without a brand exactly as rendered', async () => {
    const sent = await send('no-brand@example.com', undefined)
    expect(String(sent.html).trim()).toBe(mail('en').html.trim())
    expect(String(sent.text).trim()).toBe(mail('en').text.trim())
  })
})
