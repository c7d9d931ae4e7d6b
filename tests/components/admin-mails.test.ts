/**
 * The admin console's mail texts (pages/admin/mails.vue): each text with the catalogue's words and
 * the administrator's own, saved as typed (an empty field keeps the catalogue's), a refused text
 * said at its field by the IAM's code, the preview's HTML in a sandbox without scripts, and the
 * reset confirmed in place.
 */
import { describe, expect, it, vi } from 'vitest'
import MailsPage from '../../pages/admin/mails.vue'
import { mountSignedIn } from './admin-mount'
import { answer, answerInTurn } from './bff'

const SIGNED_IN = { authenticated: true, userId: 'u-1', email: 'ada@example.com', emailVerified: true, name: 'Ada', roles: [] }
const BASE = '/api/admin/mail-templates/passwordReset/de'

const view = (overrides: Record<string, string> = {}, updatedAt: string | null = null) => ({
  ok: true,
  data: {
    kind: 'passwordReset',
    locale: 'de',
    defaults: { subject: '{siteName}: Passwort zurücksetzen', asked: 'Jemand möchte das Passwort von {siteName} zurücksetzen.' },
    overrides,
    placeholders: { subject: ['siteName'], asked: ['siteName'] },
    updatedAt,
  },
})

async function mountPage() {
  const page = await mountSignedIn(MailsPage, '/admin/mails?kind=passwordReset&locale=de', SIGNED_IN, { attach: false })
  await vi.waitFor(() => expect(page.find('[data-testid="admin-mail-form"]').exists()).toBe(true))
  return page
}

describe('the mail texts page', () => {
  it('shows each text with the built-in words and an empty field, and saves only the texts typed', async () => {
    answer('GET', BASE, 200, view())
    const saved = answer('POST', `${BASE}/save`, 200, view({ subject: '{siteName}: neues Passwort' }, '2026-01-02T03:04:05.000Z'))
    const page = await mountPage()
    expect(page.find('#admin-mail-kind').element).toHaveProperty('value', 'passwordReset')
    expect(page.find('#admin-mail-default-subject').text()).toContain('{siteName}: Passwort zurücksetzen')
    expect((page.find('#admin-mail-text-subject').element as HTMLTextAreaElement).value).toBe('')
    expect(page.find('#admin-mail-hint-subject').text()).toContain('{siteName}')
    expect(page.find('#admin-mail-reset').exists()).toBe(false)

    await page.find('#admin-mail-text-subject').setValue('{siteName}: neues Passwort')
    await page.find('[data-testid="admin-mail-form"]').trigger('submit')
    await vi.waitFor(() => expect(page.find('[role="status"]').exists()).toBe(true))
    expect(saved.bodies).toEqual([{ texts: { subject: '{siteName}: neues Passwort' } }])
    expect(page.find('[role="status"]').text()).toContain('now uses your words')
    expect(page.find('#admin-mail-reset').exists()).toBe(true)
  })

  it('says which placeholder of which text the mail cannot fill in, at the field, from the code', async () => {
    answer('GET', BASE, 200, view())
    answer('POST', `${BASE}/save`, 400, { ok: false, error: 'Validation failed', code: 'mail_placeholder_unknown', fields: { 'texts.asked': 'Unknown placeholder {firstName}: it may name {siteName}' } })
    const page = await mountPage()
    await page.find('#admin-mail-text-asked').setValue('Hallo {firstName}')
    await page.find('[data-testid="admin-mail-form"]').trigger('submit')
    await vi.waitFor(() => expect(page.find('#admin-mail-error-asked').exists()).toBe(true))
    expect(page.find('#admin-mail-error-asked').text()).toBe('“asked” names {firstName}, which this text cannot fill in. It may name {siteName}.')
    expect(page.find('#admin-mail-text-asked').attributes('aria-invalid')).toBe('true')
    expect(page.find('#admin-mail-text-asked').attributes('aria-describedby')).toContain('admin-mail-error-asked')
    expect(page.find('[role="alert"]').text()).toContain('{firstName}')
  })

  it('shows the preview subject, the HTML in a sandbox without any permission, and the plain text', async () => {
    answer('GET', BASE, 200, view())
    const previewed = answer('POST', `${BASE}/preview`, 200, { ok: true, data: { subject: 'Identity: neues Passwort', html: '<p>Hallo</p><script>parent.x=1</script>', text: 'Hallo\n\nLink' } })
    const page = await mountPage()
    await page.find('#admin-mail-text-subject').setValue('{siteName}: neues Passwort')
    await page.find('[data-testid="admin-mail-preview"]').trigger('click')
    await vi.waitFor(() => expect(page.find('[data-testid="admin-mail-preview-result"]').exists()).toBe(true))
    expect(previewed.bodies).toEqual([{ texts: { subject: '{siteName}: neues Passwort' } }])
    expect(page.find('[data-testid="admin-mail-subject"]').text()).toBe('Identity: neues Passwort')
    const frame = page.find('iframe')
    expect(frame.attributes('sandbox')).toBe('')
    expect(frame.attributes('srcdoc')).toContain('<p>Hallo</p>')
    expect(frame.attributes('title')).toContain('Identity: neues Passwort')
    expect(page.find('[data-testid="admin-mail-text"]').text()).toBe('Hallo\n\nLink')
  })

  it('resets to the built-in words only after the confirmation in place', async () => {
    answerInTurn('GET', BASE, [
      { status: 200, body: view({ subject: 'Eigener Betreff' }, '2026-01-02T03:04:05.000Z') },
      { status: 200, body: view() },
    ])
    const reset = answer('POST', `${BASE}/reset`, 200, { ok: true, data: { deleted: true } })
    const page = await mountPage()
    expect((page.find('#admin-mail-text-subject').element as HTMLTextAreaElement).value).toBe('Eigener Betreff')
    await page.find('#admin-mail-reset').trigger('click')
    expect(page.find('#admin-mail-reset-confirm').text()).toContain('Go back to the built-in words')
    expect(reset.bodies).toEqual([])
    await page.find('#admin-mail-reset-confirm button.danger').trigger('click')
    await vi.waitFor(() => expect(page.find('[role="status"]').exists()).toBe(true))
    expect(reset.bodies).toHaveLength(1)
    expect(page.find('[role="status"]').text()).toBe('The built-in words apply again.')
    expect((page.find('#admin-mail-text-subject').element as HTMLTextAreaElement).value).toBe('')
    expect(page.find('#admin-mail-reset').exists()).toBe(false)
  })
})
