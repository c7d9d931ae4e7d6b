/**
 * Mails in the person's language (docs/i18n.md "Mails"), through HTTP against the built IAM: the
 * account's chosen language (POST /auth/profile), else the request's Accept-Language, else
 * English; every mail kind in every language (the admin preview renders each with sample values);
 * the administrator's override of one mail in one language.
 */
// store-independent: the language is chosen from the request and one profile column, which tests/iam/profile.test.ts runs on both
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SUPPORTED_LOCALES, type Locale } from '../../iam/contract/locales'
import { MAIL_KINDS } from '../../iam/contract/mail-templates'
import { CATALOGUES } from '../../iam/features/mail/catalogue/catalogues'
import { fill } from '../../iam/features/mail/format'
import { call, newDevice, PROXY_CONFIG, signupBody, signupUser, uniqueEmail, type Session } from '../helpers/accounts'
import { signupConfirmed } from '../helpers/confirm-email'
import { startIam, type IamServer, type Json } from '../helpers/iam-server'
import { isVerificationMail, recipients, startSmtp, type ParsedMail, type SmtpCapture } from '../helpers/smtp'

const SITE = 'https://id.example.com'
const SITE_NAME = 'Acme'

let iam: IamServer
let smtp: SmtpCapture
beforeAll(async () => {
  smtp = await startSmtp()
  iam = await startIam({
    config: {
      ...PROXY_CONFIG,
      email: { siteName: SITE_NAME },
      magic_links: { domain: SITE },
      rate_limiters: { forgotPassword: { points: 100, duration: 3600, blockDuration: 3600 } },
    },
    // the test build's routes: /__test/platform-admin grants the administrator role
    env: { SMTP_URL: smtp.url, IAM_TEST_ROUTES: '1' },
  })
}, 180_000)
afterAll(async () => {
  await iam?.stop()
  await smtp?.stop()
})

let ip = 0
const nextIp = () => `198.51.100.${++ip}`
const authed = (s: Session, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  call(iam, method, path, { client: s, cookies: { session: s.refreshToken }, bearer: s.accessToken, body, headers })
const json = async (res: Response) => (await res.json()) as Json

/** A mail's parts, asserted to be one mail in `locale`: lang and dir on <html>, its footer, the English footer absent. */
function expectLanguage(mail: { subject: string; html: string; text: string }, locale: Locale): void {
  const dir = locale === 'ar' ? 'rtl' : 'ltr'
  expect(mail.html).toMatch(new RegExp(`^<!doctype html>\\n<html lang="${locale}" dir="${dir}">`))
  expect(mail.html).toContain(`class="mail-card" lang="${locale}" dir="${dir}"`)
  const footer = fill(CATALOGUES[locale].layout.footer, { siteName: SITE_NAME })
  expect(mail.html).toContain(footer)
  if (locale !== 'en') {
    expect(mail.html).not.toContain(fill(CATALOGUES.en.layout.footer, { siteName: SITE_NAME }))
    expect(mail.text).not.toContain(CATALOGUES.en.layout.copyAddress)
  }
}

/** Every link of the text part is in the HTML part as an href, absolute and on the configured site. */
function expectLinks(mail: { html: string; text: string }): number {
  const links = [...mail.text.matchAll(/https?:\/\/\S+/g)].map((m) => m[0])
  for (const link of links) {
    expect(link.startsWith(`${SITE}/`), link).toBe(true)
    expect(mail.html).toContain(`href="${link.replace(/&/g, '&#38;')}"`)
  }
  return links.length
}

const partsOf = (mail: ParsedMail) => ({ subject: mail.subject ?? '', html: typeof mail.html === 'string' ? mail.html : '', text: mail.text ?? '' })

describe('the language of a mail sent to a signed-out person', () => {
  it('writes the password reset in German when the request asks for German', async () => {
    const user = await signupUser(iam, { client: { ip: nextIp() } })
    const device = await newDevice(iam, { ip: nextIp() })
    const res = await call(iam, 'POST', '/auth/forgot-password', { client: device, body: { email: user.email }, headers: { 'accept-language': 'de-CH,de;q=0.9,en;q=0.5' } })
    expect(res.status).toBe(200)
    const mail = partsOf(await smtp.waitForMail((m) => recipients(m).includes(user.email) && !isVerificationMail(m)))
    expect(mail.subject).toBe(`${SITE_NAME}: Setzen Sie Ihr Passwort zurück`)
    expect(mail.text).toContain('Passwort')
    expect(mail.text).toContain('15 Minuten')
    expect(mail.text).not.toContain('reset the password')
    expectLanguage(mail, 'de')
    expect(expectLinks(mail)).toBe(1)
  })

  it('writes the verification mail of a signup in Arabic, right to left, when the browser asks for Arabic', async () => {
    const device = await newDevice(iam, { ip: nextIp() })
    const email = uniqueEmail('arabic')
    const res = await call(iam, 'POST', '/signup', {
      client: device,
      headers: { 'accept-language': 'ar-EG,ar;q=0.9' },
      body: signupBody(email),
    })
    expect(res.status, await res.clone().text()).toBe(201)
    const mail = partsOf(await smtp.waitForMail((m) => recipients(m).includes(email) && isVerificationMail(m)))
    expect(mail.subject).toBe(fill(CATALOGUES.ar.mails.verifyEmail.subject, { siteName: SITE_NAME }))
    expectLanguage(mail, 'ar')
    expect(mail.html).toContain('text-align:right')
    expect(expectLinks(mail)).toBe(1)
  })

  it('answers English for a language it does not write in', async () => {
    const user = await signupUser(iam, { client: { ip: nextIp() } })
    const device = await newDevice(iam, { ip: nextIp() })
    await call(iam, 'POST', '/auth/forgot-password', { client: device, body: { email: user.email }, headers: { 'accept-language': 'pt-BR' } })
    const mail = partsOf(await smtp.waitForMail((m) => recipients(m).includes(user.email) && !isVerificationMail(m)))
    expect(mail.subject).toBe(`${SITE_NAME}: reset your password`)
    expectLanguage(mail, 'en')
  })
})

describe('the account’s own language (POST /auth/profile)', () => {
  it('stores a supported language, returns it with the session, and refuses another one with locale_unsupported', async () => {
    const s = await signupUser(iam, { client: { ip: nextIp() } })
    const refused = await authed(s, 'POST', '/auth/profile', { locale: 'pt' })
    const refusedBody = await json(refused)
    expect(refused.status).toBe(400)
    expect(refusedBody).toMatchObject({ ok: false, code: 'locale_unsupported', fields: { locale: expect.stringContaining('de') } })
    const stored = await authed(s, 'POST', '/auth/profile', { locale: 'ja' })
    expect(stored.status).toBe(200)
    expect((await json(stored)).data).toEqual({ name: 'Test User', locale: 'ja', timeZone: null })
    const meta = await json(await authed(s, 'GET', '/secret/accesstoken/metadata'))
    expect(meta.locale).toBe('ja')
    // the old callers' contract: a name alone, and no body field at all is `Name is required`
    const named = await authed(s, 'POST', '/auth/profile', { name: 'Aiko' })
    expect((await json(named)).data).toEqual({ name: 'Aiko', locale: 'ja', timeZone: null })
    const empty = await authed(s, 'POST', '/auth/profile', {})
    expect(empty.status).toBe(400)
    expect(await json(empty)).toMatchObject({ code: 'validation_failed', fields: { name: 'Name is required' } })
    const forgotten = await authed(s, 'POST', '/auth/profile', { locale: null })
    expect((await json(forgotten)).data).toEqual({ name: 'Aiko', locale: null, timeZone: null })
  })

  it('writes to an account in French when it chose French, even when the request asks for German', async () => {
    const s = await signupUser(iam, { client: { ip: nextIp() } })
    expect((await authed(s, 'POST', '/auth/profile', { locale: 'fr' }, { 'accept-language': 'de' })).status).toBe(200)
    const device = await newDevice(iam, { ip: nextIp() })
    await call(iam, 'POST', '/auth/forgot-password', { client: device, body: { email: s.email }, headers: { 'accept-language': 'de' } })
    const mail = partsOf(await smtp.waitForMail((m) => recipients(m).includes(s.email) && !isVerificationMail(m)))
    expect(mail.subject).toBe(`${SITE_NAME} : réinitialisez votre mot de passe`)
    expect(mail.text).toContain('mot de passe')
    expect(mail.text).not.toContain('Passwort')
    expectLanguage(mail, 'fr')
  })
})

describe('the invitation to an organization', () => {
  it('is in English whatever the inviter’s language, and in the invitee’s own language when their account chose one', async () => {
    const owner = await signupConfirmed(iam, smtp, { client: { ip: nextIp() } })
    const created = await authed(owner, 'POST', '/orgs', { name: 'Example Team', slug: `team-${Date.now().toString(36)}` })
    expect(created.status, await created.clone().text()).toBe(201)
    const orgId = ((await json(created)).data as { org: { id: string } }).org.id
    const stranger = uniqueEmail('stranger')
    expect((await authed(owner, 'POST', `/orgs/${orgId}/invitations`, { email: stranger, role: 'member' }, { 'accept-language': 'de' })).status).toBe(201)
    const english = partsOf(await smtp.waitForMail((m) => recipients(m).includes(stranger)))
    expect(english.subject).toBe(`${SITE_NAME}: you are invited to join Example Team`)
    expectLanguage(english, 'en')
    const member = await signupUser(iam, { client: { ip: nextIp() } })
    expect((await authed(member, 'POST', '/auth/profile', { locale: 'es' })).status).toBe(200)
    expect((await authed(owner, 'POST', `/orgs/${orgId}/invitations`, { email: member.email, role: 'member' }, { 'accept-language': 'de' })).status).toBe(201)
    const spanish = partsOf(await smtp.waitForMail((m) => recipients(m).includes(member.email) && !isVerificationMail(m)))
    expect(spanish.subject).toBe(`${SITE_NAME}: le invitan a unirse a Example Team`)
    expectLanguage(spanish, 'es')
  })
})

describe('every mail in every language, and the administrator’s own words', () => {
  let admin: Session
  beforeAll(async () => {
    admin = await signupUser(iam, { client: { ip: nextIp() } })
    const granted = await fetch(`${iam.url}/__test/platform-admin`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: admin.email, admin: true }) })
    expect(granted.status).toBe(200)
  })
  const preview = (kind: string, locale: string, body: Json = {}) => authed(admin, 'POST', `/admin/mail-templates/${kind}/${locale}/preview`, body)

  it('renders each mail kind in each language, with its words, lang and dir, and the same absolute links in both parts', async () => {
    for (const kind of MAIL_KINDS) {
      const english = ((await json(await preview(kind, 'en'))).data as { subject: string; html: string; text: string })
      for (const locale of SUPPORTED_LOCALES) {
        const res = await preview(kind, locale)
        const body = await json(res)
        expect(res.status, `${kind} ${locale}: ${JSON.stringify(body)}`).toBe(200)
        const mail = body.data as { subject: string; html: string; text: string }
        expect(mail.subject, `${kind} ${locale}`).toContain(SITE_NAME)
        expectLanguage(mail, locale)
        expect(expectLinks(mail)).toBe(expectLinks(english))
        if (locale !== 'en') {
          expect(mail.subject, `${kind} ${locale}`).not.toBe(english.subject)
          expect(mail.text).not.toContain(english.text.split('\n')[0])
        }
      }
    }
  })

  it('overrides the subject of one mail in one language only, shows it in the preview and sends it', async () => {
    const subject = '{siteName}: Ihr Link zum neuen Passwort'
    const saved = await authed(admin, 'PUT', '/admin/mail-templates/passwordReset/de', { texts: { subject } })
    const savedBody = await json(saved)
    expect(saved.status, JSON.stringify(savedBody)).toBe(200)
    expect(savedBody.data).toMatchObject({ kind: 'passwordReset', locale: 'de', overrides: { subject }, placeholders: { subject: ['siteName'] } })
    expect(((await json(await preview('passwordReset', 'de'))).data as Json).subject).toBe(`${SITE_NAME}: Ihr Link zum neuen Passwort`)
    // the same mail in French, and another German mail, keep the catalogue's words
    expect(((await json(await preview('passwordReset', 'fr'))).data as Json).subject).toBe(`${SITE_NAME} : réinitialisez votre mot de passe`)
    expect(((await json(await preview('verifyEmail', 'de'))).data as Json).subject).toBe(`${SITE_NAME}: Bestätigen Sie Ihre E-Mail-Adresse`)
    const user = await signupUser(iam, { client: { ip: nextIp() } })
    const device = await newDevice(iam, { ip: nextIp() })
    await call(iam, 'POST', '/auth/forgot-password', { client: device, body: { email: user.email }, headers: { 'accept-language': 'de' } })
    const sent = partsOf(await smtp.waitForMail((m) => recipients(m).includes(user.email) && !isVerificationMail(m)))
    expect(sent.subject).toBe(`${SITE_NAME}: Ihr Link zum neuen Passwort`)
    expect(sent.html).toContain('<title>Acme: Ihr Link zum neuen Passwort</title>')
    // removed: the catalogue's words again
    expect((await json(await authed(admin, 'DELETE', '/admin/mail-templates/passwordReset/de'))).data).toEqual({ deleted: true })
    expect(((await json(await preview('passwordReset', 'de'))).data as Json).subject).toBe(`${SITE_NAME}: Setzen Sie Ihr Passwort zurück`)
    expect((await json(await authed(admin, 'DELETE', '/admin/mail-templates/passwordReset/de'))).data).toEqual({ deleted: false })
  })

  it('previews unsaved words escaped as text, and refuses an unknown placeholder, an unknown key and markup with their codes', async () => {
    const shown = await json(await preview('passwordReset', 'en', { texts: { asked: 'Fish & chips {siteName} "quoted"' } }))
    expect((shown.data as Json).html).toContain('Fish &#38; chips Acme &#34;quoted&#34;')
    expect((shown.data as Json).text).toContain('Fish & chips Acme "quoted"')
    const cases: Array<[Json, string]> = [
      [{ subject: '{siteName}: {password}' }, 'mail_placeholder_unknown'],
      [{ greeting: 'Hello' }, 'mail_text_unknown'],
      [{ asked: 'Click <a href="https://evil.example">here</a>' }, 'mail_text_markup'],
      [{ asked: 'Fish &amp; chips' }, 'mail_text_markup'],
    ]
    for (const [texts, code] of cases) {
      for (const res of [await authed(admin, 'PUT', '/admin/mail-templates/passwordReset/en', { texts }), await preview('passwordReset', 'en', { texts })]) {
        const body = await json(res)
        expect(res.status, JSON.stringify(body)).toBe(400)
        expect(body).toMatchObject({ ok: false, code, fields: { [`texts.${Object.keys(texts)[0]}`]: expect.any(String) } })
      }
    }
    // nothing was stored by the refusals
    expect((await json(await authed(admin, 'GET', '/admin/mail-templates/passwordReset/en'))).data).toMatchObject({ overrides: {}, updatedAt: null })
    expect((await authed(admin, 'GET', '/admin/mail-templates/noSuchMail/en')).status).toBe(400)
    expect((await authed(admin, 'GET', '/admin/mail-templates/passwordReset/pt')).status).toBe(400)
  })

  it('refuses an account that is not a platform administrator with 403 on every mail-template route', async () => {
    const member = await signupUser(iam, { client: { ip: nextIp() } })
    const calls: Array<[string, string, Json | undefined]> = [
      ['GET', '/admin/mail-templates/passwordReset/de', undefined],
      ['PUT', '/admin/mail-templates/passwordReset/de', { texts: { subject: '{siteName}: hi' } }],
      ['DELETE', '/admin/mail-templates/passwordReset/de', undefined],
      ['POST', '/admin/mail-templates/passwordReset/de/preview', {}],
    ]
    for (const [method, path, body] of calls) {
      const res = await authed(member, method, path, body)
      expect(res.status, `${method} ${path}`).toBe(403)
      expect(await json(res)).toMatchObject({ ok: false, code: 'not_admin' })
    }
  })
})
