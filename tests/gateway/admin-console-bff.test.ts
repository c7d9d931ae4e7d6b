/**
 * The admin console's mail-text, webhook and sign-up statistics BFF routes (server/api/admin/mail-templates/**,
 * server/api/admin/webhooks/**, server/api/admin/stats/**) against the real IAM: each calls its allow-listed IAM route (a PUT
 * or DELETE of the IAM behind a POST of the pages) and relays the answer, with the IAM's code of a
 * refused text; input the IAM's schemas refuse stops at the BFF; an account without the role is
 * refused by the IAM's guard, relayed as it is.
 */
// store-independent: the gateway keeps no store of its own; the admin routes it relays run on both stores in tests/iam/admin-api.test.ts
import { describe, expect, it } from 'vitest'
import { signRequestV2 } from '../../iam/client/hmac'
import { hmac, sharedBffIam } from '../helpers/shared-bff-iam'
import { browserLike, freshEmail, PASSWORD, setupStackOnSharedIam } from './bff-harness'

const stack = await setupStackOnSharedIam()

type Browser = ReturnType<typeof browserLike>

async function signedUp(tag: string): Promise<{ email: string; b: Browser }> {
  const email = freshEmail(tag)
  const b = browserLike(stack.gateway.url)
  const res = await b.call('/api/auth/signup', { method: 'POST', body: { email, password: PASSWORD, confirmedPassword: PASSWORD, name: `${tag} user`, termsConsent: 'on' } })
  expect(res.status, res.text).toBe(201)
  return { email, b }
}

/** A signed-up account made a platform administrator, as `users:grant-admin` does (the shared IAM's test route). */
async function administrator(): Promise<Browser> {
  const { email, b } = await signedUp('mail-admin')
  const body = JSON.stringify({ email, admin: true })
  const res = await fetch(`${sharedBffIam().url}/__test/platform-admin`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...signRequestV2({ ...hmac, method: 'POST', url: '/__test/platform-admin', body }) },
    body,
  })
  expect(res.status, await res.text()).toBe(200)
  return b
}

// one language per test: the overrides are the shared IAM's, and the files of the project run side by side
const MAIL = '/api/admin/mail-templates/useProvider'

describe('mail texts through the BFF', () => {
  it('reads a mail in a language, stores an override, previews it and resets it to the catalogue', async () => {
    const b = await administrator()
    const read = await b.call(`${MAIL}/de`)
    expect(read.status, read.text).toBe(200)
    const view = read.json.data as { defaults: Record<string, string>; overrides: Record<string, string>; placeholders: Record<string, string[]> }
    expect(view.defaults.subject).toContain('{siteName}')
    expect(view.placeholders.subject).toEqual(['siteName'])

    const saved = await b.call(`${MAIL}/de/save`, { method: 'POST', body: { texts: { subject: '{siteName}: bitte ein neues Passwort wählen' } } })
    expect(saved.status, saved.text).toBe(200)
    expect(saved.json.data).toMatchObject({ locale: 'de', overrides: { subject: '{siteName}: bitte ein neues Passwort wählen' }, updatedAt: expect.any(String) })

    // the preview takes the texts of the form without storing them, and the stored override without
    const typed = await b.call(`${MAIL}/de/preview`, { method: 'POST', body: { texts: { subject: '{siteName}: nur eine Vorschau' } } })
    expect(typed.status, typed.text).toBe(200)
    expect((typed.json.data as { subject: string }).subject).toMatch(/: nur eine Vorschau$/)
    const stored = await b.call(`${MAIL}/de/preview`, { method: 'POST', body: {} })
    expect(stored.json.data).toMatchObject({ subject: expect.stringMatching(/bitte ein neues Passwort wählen$/), html: expect.stringContaining('<'), text: expect.any(String) })

    const reset = await b.call(`${MAIL}/de/reset`, { method: 'POST' })
    expect(reset.status, reset.text).toBe(200)
    expect(reset.json.data).toEqual({ deleted: true })
    expect((await b.call(`${MAIL}/de`)).json.data).toMatchObject({ overrides: {}, updatedAt: null })
  })

  it('relays the code of a refused text with the key it names: a placeholder the text lacks, markup, a key the mail lacks', async () => {
    const b = await administrator()
    const placeholder = await b.call(`${MAIL}/fr/save`, { method: 'POST', body: { texts: { subject: 'Bonjour {firstName}' } } })
    expect(placeholder.status, placeholder.text).toBe(400)
    expect(placeholder.json).toMatchObject({ code: 'mail_placeholder_unknown', fields: { 'texts.subject': expect.stringContaining('{firstName}') } })
    const markup = await b.call(`${MAIL}/fr/preview`, { method: 'POST', body: { texts: { asked: 'Un <b>lien</b>' } } })
    expect(markup.json).toMatchObject({ code: 'mail_text_markup', fields: { 'texts.asked': expect.any(String) } })
    const unknown = await b.call(`${MAIL}/fr/save`, { method: 'POST', body: { texts: { footer: 'Merci' } } })
    expect(unknown.json).toMatchObject({ code: 'mail_text_unknown', fields: { 'texts.footer': expect.any(String) } })
    // nothing of it was stored
    expect((await b.call(`${MAIL}/fr`)).json.data).toMatchObject({ overrides: {}, updatedAt: null })
  })

  it('refuses a mail kind or language the IAM does not have, and a body its schema refuses, before calling it', async () => {
    const b = await administrator()
    for (const path of ['/api/admin/mail-templates/nope/de', '/api/admin/mail-templates/useProvider/xx']) {
      const res = await b.call(path)
      expect(res.status, path).toBe(400)
      expect(res.json).toMatchObject({ ok: false, code: 'validation_failed' })
    }
    const extra = await b.call(`${MAIL}/es/save`, { method: 'POST', body: { texts: { subject: 'Hola' }, html: '<p>x</p>' } })
    expect(extra.status).toBe(400)
    expect(extra.json).toMatchObject({ code: 'validation_failed' })
  })
})

describe('sign-up statistics through the BFF', () => {
  it('relays the hours asked for, and refuses hours the IAM would refuse before calling it', async () => {
    const b = await administrator()
    const read = await b.call('/api/admin/stats/signups?hours=48')
    expect(read.status, read.text).toBe(200)
    const data = read.json.data as { perHour: Array<{ hour: string; signups: number }>; totals: { signups: number } }
    expect(data.perHour).toHaveLength(48)
    // this file's own sign-ups are among them
    expect(data.totals.signups).toBeGreaterThanOrEqual(1)
    expect((await b.call('/api/admin/stats/signups')).json.data).toMatchObject({ perHour: expect.any(Array) })
    for (const hours of ['0', '169', 'two']) {
      const refused = await b.call(`/api/admin/stats/signups?hours=${hours}`)
      expect(refused.status, hours).toBe(400)
      expect(refused.json, hours).toMatchObject({ ok: false, code: 'validation_failed' })
    }
  })
})

describe('the console routes refuse an account without the role', () => {
  it('answers 403 not_admin to a signed-in member for reading, saving, resetting mails, listing webhooks and the sign-up statistics', async () => {
    const { b } = await signedUp('not-admin')
    const calls: Array<[string, 'GET' | 'POST', unknown?]> = [
      [`${MAIL}/ja`, 'GET'],
      [`${MAIL}/ja/save`, 'POST', { texts: { subject: 'x' } }],
      [`${MAIL}/ja/reset`, 'POST'],
      [`${MAIL}/ja/preview`, 'POST', {}],
      ['/api/admin/webhooks', 'GET'],
      ['/api/admin/webhooks', 'POST', { url: 'https://hooks.example.com/in', eventTypes: ['user.created'] }],
      ['/api/admin/stats/signups', 'GET'],
    ]
    for (const [path, method, body] of calls) {
      const res = await b.call(path, { method, body })
      expect(res.status, `${method} ${path}: ${res.text}`).toBe(403)
      expect(res.json.code, path).toBe('not_admin')
    }
  })

  it('answers 401 to a browser that is not signed in', async () => {
    const b = browserLike(stack.gateway.url)
    const res = await b.call(`${MAIL}/ar`)
    expect(res.status).toBe(401)
    expect(res.json).toMatchObject({ signedOut: true })
  })
})
