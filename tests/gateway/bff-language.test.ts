/**
 * The person's language reaches the IAM on every call of the BFF (server/utils/bff/iam-call.ts,
 * docs/i18n.md "Mails"): the `locale` cookie the pages set when it holds a supported code, else the
 * browser's Accept-Language. Proven by the language of the verification mail a sign-up through the
 * gateway sends (the signed call still verifies: the header is outside the signature). The time
 * zone travels the same way (the `time_zone` cookie the pages write, as `x-time-zone`): proven by
 * the moment in the password-changed notice of an account made through the gateway.
 */
// store-independent: its subject is the language header the gateway sends; the mail language behind it is tests/iam/mail-languages.test.ts
import { describe, expect, it } from 'vitest'
import { CATALOGUES } from '../../iam/features/mail/catalogue/catalogues'
import type { Locale } from '../../iam/contract/locales'
import { mailTo } from '../helpers/confirm-email'
import { isVerificationMail } from '../helpers/smtp'
import { TIME_ZONE_COOKIE } from '../../iam/contract/time-zones'
import { browserLike, freshEmail, PASSWORD, setupStackOnSharedIam } from './bff-harness'

const { gateway, iam } = await setupStackOnSharedIam()

/** Signs up through the gateway with `cookies` and `headers`; the language its verification mail is in. */
async function verificationMailOf(cookies: Record<string, string>, headers: Record<string, string>) {
  const b = browserLike(gateway.url)
  for (const [name, value] of Object.entries(cookies)) b.jar.set(name, value)
  const email = freshEmail()
  const res = await b.call('/api/auth/signup', { method: 'POST', headers, body: { email, password: PASSWORD, confirmedPassword: PASSWORD, name: 'Test User', termsConsent: 'on' } })
  expect(res.status, res.text).toBe(201)
  return mailTo(iam, email, isVerificationMail)
}

/** The subject of the verification mail in `locale`, after the site's name. */
const subjectEnd = (locale: Locale) => CATALOGUES[locale].mails.verifyEmail.subject.split('{siteName}')[1]!

describe('the language the gateway forwards to the IAM', () => {
  it('is the browser’s Accept-Language when no language was chosen on the site', async () => {
    const mail = await verificationMailOf({}, { 'accept-language': 'fr-FR,fr;q=0.9,en;q=0.5' })
    expect(mail.subject?.endsWith(subjectEnd('fr'))).toBe(true)
    expect(mail.html).toContain('<html lang="fr" dir="ltr">')
  })

  it('is the language chosen on the site (the locale cookie) over the browser’s', async () => {
    const mail = await verificationMailOf({ locale: 'ja' }, { 'accept-language': 'fr' })
    expect(mail.subject?.endsWith(subjectEnd('ja'))).toBe(true)
    expect(mail.html).toContain('<html lang="ja" dir="ltr">')
  })

  it('ignores a locale cookie that is not a supported code and takes the browser’s language', async () => {
    const mail = await verificationMailOf({ locale: 'xx' }, { 'accept-language': 'ar' })
    expect(mail.subject?.endsWith(subjectEnd('ar'))).toBe(true)
    expect(mail.html).toContain('<html lang="ar" dir="rtl">')
  })

  it('is English when the browser names no language', async () => {
    const mail = await verificationMailOf({}, {})
    expect(mail.subject?.endsWith(subjectEnd('en'))).toBe(true)
  })
})

describe('the time zone the gateway forwards to the IAM', () => {
  /** Signs up through the gateway with the `time_zone` cookie as the pages write it, changes the password; the notice's text. */
  async function passwordNoticeWith(cookie: string): Promise<string> {
    const b = browserLike(gateway.url)
    b.jar.set(TIME_ZONE_COOKIE, cookie)
    const email = freshEmail()
    const res = await b.call('/api/auth/signup', { method: 'POST', body: { email, password: PASSWORD, confirmedPassword: PASSWORD, name: 'Test User', termsConsent: 'on' } })
    expect(res.status, res.text).toBe(201)
    const changed = await b.call('/api/auth/change-password', { method: 'POST', body: { currentPassword: PASSWORD, password: 'a brand new passphrase 2026', confirmedPassword: 'a brand new passphrase 2026' } })
    expect(changed.status, changed.text).toBe(200)
    return (await mailTo(iam, email, (m) => /password was changed/.test(m.subject ?? ''))).text ?? ''
  }

  it('is the zone of the time_zone cookie, kept on the account made through the gateway', async () => {
    // Kathmandu is UTC+05:45 all year: no UTC time reads as it
    expect(await passwordNoticeWith(encodeURIComponent('Asia/Kathmandu'))).toMatch(/\d{2}:\d{2} \(Asia\/Kathmandu\)/)
  })

  it('is left out when the cookie names no zone, and the mail says UTC', async () => {
    const text = await passwordNoticeWith('Mars%2FOlympus_Mons')
    expect(text).toMatch(/\d{2}:\d{2} UTC/)
    expect(text).not.toContain('Mars')
  })
})
