import { anomalyReason } from '../../iam/contract/anomaly-reasons'
import { escapeHtml } from '../../shared/html'
import { describe, expect, it } from 'vitest'
import {
  adaptiveMfaMail,
  customActionMail,
  emailChangedNotice,
  passwordChangedNotice,
  verifyEmailMail,
  passwordResetMail,
  useProviderMail,
} from '../../iam/features/mail/templates'
import { humanDate } from '../../iam/features/mail/format'

const link = 'http://127.0.0.1:3000/auth/confirm?token=a.b.c&random=xyz&reason=PAY&visitor=v1'
const NOW = new Date('2026-11-29T14:05:09.000Z')

describe('mail templates', () => {
  it('escapes every HTML-significant character, the backtick included', () => {
    expect(escapeHtml(`<a href="x" onclick='y'>&</a>`)).toBe('&#60;a href=&#34;x&#34; onclick=&#39;y&#39;&#62;&#38;&#60;/a&#62;')
    expect(escapeHtml('`x`')).toBe('&#96;x&#96;')
  })

  it('has one HTML escape for both apps: no page or mail module defines its own', async () => {
    const { execFileSync } = await import('node:child_process')
    const found = execFileSync('git', ['grep', '--untracked', '-l', '-E', '(function|const) escapeHtml\\b', '--', 'iam', 'server', 'shared', 'composables', 'components', 'pages'], { encoding: 'utf8' })
    expect(found.trim().split('\n')).toEqual(['shared/html.ts'])
  })

  it('escapes user-provided values in the HTML part and keeps them readable in the text part', () => {
    const mail = customActionMail({ siteName: 'Acme <Id>', locale: 'en', link, code: '1234567', codeTtlMs: 420_000, reason: 'PAY', note: '<img src=x onerror=alert(1)>' })
    expect(mail.html).not.toContain('<img')
    expect(mail.html).toContain('&#60;img src=x onerror=alert(1)&#62;')
    expect(mail.html).toContain('Acme &#60;Id&#62;')
    expect(mail.text).toContain('Note: <img src=x onerror=alert(1)>')
  })

  it('never puts the code in the subject and puts it in both parts', () => {
    const mails = [
      adaptiveMfaMail({ siteName: 'Acme', locale: 'en', link, code: '7654321', codeTtlMs: 420_000, anomaly: 'new device', ipAddress: '10.0.0.1' }),
      customActionMail({ siteName: 'Acme', locale: 'en', link, code: '7654321', codeTtlMs: 420_000, reason: 'PAY' }),
    ]
    for (const mail of mails) {
      expect(mail.subject).not.toContain('7654321')
      expect(mail.subject).not.toContain('token')
      expect(mail.text).toContain('7654321')
      expect(mail.html).toContain('7654321')
      expect(mail.text).toContain(link)
      expect(mail.html).toContain(escapeHtml(link))
    }
  })

  it('says in words why the unusual-sign-in check asked, never the name of the check', () => {
    for (const anomaly of ['SESSION_VELOCITY', 'NEW_DEVICE', 'FINGERPRINT_DRIFT', 'SOMETHING_NEW']) {
      const mail = adaptiveMfaMail({ siteName: 'Acme', locale: 'en', link, code: '7654321', codeTtlMs: 420_000, anomaly, ipAddress: '10.0.0.1' })
      expect(mail.text).not.toContain(anomaly)
      expect(mail.text).toContain(`because ${anomalyReason(anomaly)}`)
    }
    expect(anomalyReason('SESSION_VELOCITY')).toContain('several new devices')
  })

  it('gives the reset link in both parts, never in the subject', () => {
    const mail = passwordResetMail({ siteName: 'Acme', locale: 'en', link, linkTtlMs: 900_000 })
    expect(mail.subject).toBe('Acme: reset your password')
    expect(mail.text).toContain(link)
    expect(mail.text).toContain('15 minutes')
  })

  it('names the new address masked, the time in words and the IP in the email-change notice', () => {
    const mail = emailChangedNotice({ siteName: 'Acme', locale: 'en', newEmailMasked: 'n***@example.com', when: new Date('2026-11-21T20:00:00.000Z'), ipAddress: '10.0.0.9' })
    expect(mail.text).toContain('on 21 November 2026, 20:00 UTC from 10.0.0.9')
    expect(mail.text).not.toContain('2026-11-21T')
    expect(mail.text).toContain('n***@example.com')
    expect(mail.text).toContain('10.0.0.9')
    expect(passwordChangedNotice({ siteName: 'Acme', locale: 'en', when: NOW, ipAddress: '10.0.0.9' }).text).toContain('signed out')
  })

  it('names the live API tokens in the recovery notices, HTML-escaped, with singular and plural', () => {
    const tokens = [{ name: '<b>ci</b>', publicIdentifier: 'abc_123456' }]
    const reset = passwordChangedNotice({ siteName: 'Acme', locale: 'en', when: NOW, ipAddress: '10.0.0.9', tokens })
    expect(reset.text).toContain('You have 1 active API token: <b>ci</b> (abc_123456).')
    expect(reset.html).toContain('&#60;b&#62;ci&#60;/b&#62; (abc_123456)')
    expect(reset.html).not.toContain('<b>ci</b>')
    const two = emailChangedNotice({ siteName: 'Acme', locale: 'en', newEmailMasked: 'n***@example.com', when: NOW, ipAddress: '10.0.0.9', tokens: [...tokens, { name: 'b', publicIdentifier: 'x' }] })
    expect(two.text).toContain('You have 2 active API tokens: <b>ci</b> (abc_123456), b (x).')
    const none = passwordChangedNotice({ siteName: 'Acme', locale: 'en', when: NOW, ipAddress: '10.0.0.9', tokens: [], revokedTokens: 3 })
    expect(none.text).toContain('3 API tokens were revoked')
    expect(none.text).not.toContain('active API token')
  })

  it('puts the undo link of an email change in both parts with its lifetime in days', () => {
    const undo = 'http://127.0.0.1:3000/auth/undo-email-change?token=t&random=r&reason=UNDO_EMAIL_CHANGE&visitor=v'
    const mail = emailChangedNotice({ siteName: 'Acme', locale: 'en', newEmailMasked: 'n***@example.com', when: NOW, ipAddress: '10.0.0.9', undoLink: undo, undoTtlMs: 7 * 86_400_000 })
    expect(mail.text).toContain(undo)
    expect(mail.text).toContain('7 days')
    expect(mail.html).toContain(undo.replace(/&/g, '&#38;'))
    expect(mail.subject).not.toContain('token')
  })

  it('gives the verification link in both parts, never in the subject, with its lifetime in hours', () => {
    const verify = 'http://127.0.0.1:3000/auth/verify-email?token=t&random=r&reason=EMAIL_VERIFICATION&visitor=v'
    const mail = verifyEmailMail({ siteName: 'Acme', locale: 'en', link: verify, linkTtlMs: 86_400_000 })
    expect(mail.subject).toBe('Acme: confirm your email address')
    expect(mail.text).toContain(verify)
    expect(mail.text).toContain('24 hours')
  })

  it('says a moment as a person reads it, in UTC and saying so', () => {
    expect(humanDate(NOW)).toBe('29 November 2026, 14:05 UTC')
    expect(humanDate(new Date('2027-01-03T00:07:00.000Z'))).toBe('3 January 2027, 00:07 UTC')
  })

  it('names what a custom MFA flow confirms in words, in the subject and the body, never the raw reason', () => {
    const email = customActionMail({ siteName: 'Acme', locale: 'en', link, code: '7654321', codeTtlMs: 420_000, reason: 'change_email' })
    expect(email.subject).toBe('Acme: confirm changing your email address')
    expect(email.text).not.toContain('change_email')
    const payment = customActionMail({ siteName: 'Acme', locale: 'en', link, code: '7654321', codeTtlMs: 420_000, reason: 'PAYMENT_CONFIRM' })
    expect(payment.subject).toBe('Acme: confirm “payment confirm”')
    expect(payment.text).toContain('asked to confirm “payment confirm”.')
    expect(payment.text).not.toContain('PAYMENT_CONFIRM')
  })

  it('lays the HTML part out in tables with the styles inline, dark-mode colours, and printed links that may wrap', () => {
    const mail = passwordResetMail({ siteName: 'Acme', locale: 'en', link, linkTtlMs: 900_000 })
    expect(mail.html).toMatch(/^<!doctype html>\n<html lang="en" dir="ltr">/)
    expect(mail.html).toContain('<meta name="color-scheme" content="light dark">')
    expect(mail.html).toContain('@media (prefers-color-scheme: dark)')
    expect(mail.html).toContain('role="presentation"')
    expect(mail.html).toContain(`word-break:break-all;overflow-wrap:anywhere">Or copy this address into your browser: <span dir="ltr">${escapeHtml(link)}</span></p>`)
    expect(mail.html).not.toMatch(/ class="(?!mail-)/)
  })

  it('tells a provider-only account which provider to use', () => {
    const mail = useProviderMail({ siteName: 'Acme', locale: 'en', providers: ['github'], loginUrl: 'http://127.0.0.1:3000/login' })
    expect(mail.text).toContain('github')
    expect(mail.text).toContain('http://127.0.0.1:3000/login')
  })
})
