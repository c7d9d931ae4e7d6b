/**
 * The in-place editors of the account console (pages/account/**): the account's name ("Personal info") and a passkey's
 * name ("Passkeys"). Each opens a labelled field with focus in it, saves the trimmed value, shows a
 * refusal at the field and gives focus back to the button that opened it.
 */
import { mountSuspended } from '@nuxt/test-utils/runtime'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import OverviewPage from '../../pages/account/index.vue'
import SecurityPage from '../../pages/account/security.vue'
import { answer } from './bff'

const NOW = '2026-01-02T03:04:05.000Z'
const signedIn = (name: string) => ({ authenticated: true, userId: 'u-1', email: 'ada@example.com', emailVerified: true, name, roles: [] })

beforeEach(() => {
  answer('GET', '/api/auth/session', 200, signedIn('Ada'))
  answer('GET', '/api/auth/totp', 200, { ok: true, data: { enabled: false, recoveryCodesLeft: 0 } })
  answer('GET', '/api/auth/passkeys', 200, { ok: true, data: { passkeys: [{ id: 7, name: 'Laptop', createdAt: NOW, lastUsedAt: null, backedUp: false }] } })
  answer('GET', '/api/auth/sessions', 200, { ok: true, data: { sessions: [] } })
  answer('GET', '/api/auth/sign-in-methods', 200, { ok: true, data: { password: true, totp: false, passkeys: 1, providers: [] } })
  answer('GET', '/api/auth/security-events', 200, { ok: true, data: { events: [] } })
})

/** The overview (the name) or the security part (the passkeys) of the account console, signed in. */
async function account(part: 'overview' | 'security') {
  // attached to the document: the editors move focus, which a detached tree cannot hold
  const page = part === 'overview' ? await mountSuspended(OverviewPage, { route: '/account', attachTo: document.body }) : await mountSuspended(SecurityPage, { route: '/account/security', attachTo: document.body })
  await vi.waitFor(() => expect(page.find(part === 'overview' ? '#email-heading' : '#passkeys-heading').exists()).toBe(true))
  return page
}

describe('editing the name', () => {
  async function openEditor() {
    const page = await account('overview')
    await vi.waitFor(() => expect(page.find('#profile-name-edit').exists()).toBe(true))
    await page.find('#profile-name-edit').trigger('click')
    await vi.waitFor(() => expect(page.find('input#profile-name').exists()).toBe(true))
    return page
  }

  it('opens a labelled field holding the current name, with focus in it', async () => {
    const page = await openEditor()
    expect(page.find('label[for="profile-name"]').text()).toBe('Your name')
    expect((page.find('input#profile-name').element as HTMLInputElement).value).toBe('Ada')
    await vi.waitFor(() => expect(document.activeElement?.id).toBe('profile-name'))
  })

  it('saves the trimmed name and shows the name the session reads again', async () => {
    const saved = answer('POST', '/api/auth/profile', 200, { ok: true, data: { name: 'Grace Hopper' } })
    const page = await openEditor()
    answer('GET', '/api/auth/session', 200, signedIn('Grace Hopper'))
    await page.find('input#profile-name').setValue('  Grace Hopper ')
    await page.find('form.inline-edit').trigger('submit')
    await vi.waitFor(() => expect(page.find('#personal-info').text()).toContain('Grace Hopper'))
    expect(saved.bodies).toEqual([{ name: 'Grace Hopper' }])
    expect(page.find('input#profile-name').exists()).toBe(false)
    await vi.waitFor(() => expect(document.activeElement?.id).toBe('profile-name-edit'))
  })

  it("shows the IAM's refusal at the field and keeps the editor open", async () => {
    answer('POST', '/api/auth/profile', 400, { ok: false, error: 'Validation failed', fields: { name: 'At most 100 characters' } })
    const page = await openEditor()
    await page.find('input#profile-name').setValue('Grace')
    await page.find('form.inline-edit').trigger('submit')
    await vi.waitFor(() => expect(page.find('#profile-name-error').text()).toBe('At most 100 characters'))
    expect(page.find('input#profile-name').attributes('aria-invalid')).toBe('true')
    expect(page.find('input#profile-name').attributes('aria-describedby')).toContain('profile-name-error')
  })

  it('refuses an empty name at the field without asking the IAM', async () => {
    const saved = answer('POST', '/api/auth/profile', 200, { ok: true, data: { name: '' } })
    const page = await openEditor()
    await page.find('input#profile-name').setValue('   ')
    await page.find('form.inline-edit').trigger('submit')
    await vi.waitFor(() => expect(page.find('#profile-name-error').text()).toBe('Enter a name'))
    expect(saved.bodies).toEqual([])
  })

  it('closes on Escape without saving and gives focus back to Edit', async () => {
    const saved = answer('POST', '/api/auth/profile', 200, { ok: true, data: { name: 'x' } })
    const page = await openEditor()
    await page.find('input#profile-name').trigger('keydown', { key: 'Escape' })
    await vi.waitFor(() => expect(page.find('input#profile-name').exists()).toBe(false))
    await vi.waitFor(() => expect(document.activeElement?.id).toBe('profile-name-edit'))
    expect(saved.bodies).toEqual([])
  })
})

describe('renaming a passkey', () => {
  async function openEditor() {
    const page = await account('security')
    await vi.waitFor(() => expect(page.find('button[aria-label="Rename passkey Laptop"]').exists()).toBe(true))
    await page.find('button[aria-label="Rename passkey Laptop"]').trigger('click')
    await vi.waitFor(() => expect(page.find('input#passkey-rename-field-7').exists()).toBe(true))
    return page
  }

  it('saves the new name for that passkey and lists the passkeys again', async () => {
    const renamed = answer('POST', '/api/auth/passkeys/rename', 200, { ok: true, data: { passkey: { id: 7, name: 'Work laptop' } } })
    const page = await openEditor()
    expect(page.find('label[for="passkey-rename-field-7"]').text()).toBe('New name for passkey Laptop')
    await vi.waitFor(() => expect(document.activeElement?.id).toBe('passkey-rename-field-7'))
    answer('GET', '/api/auth/passkeys', 200, { ok: true, data: { passkeys: [{ id: 7, name: 'Work laptop', createdAt: NOW, lastUsedAt: null, backedUp: false }] } })
    await page.find('input#passkey-rename-field-7').setValue(' Work laptop ')
    await page.find('form.inline-edit').trigger('submit')
    await vi.waitFor(() => expect(page.find('[data-testid="passkey-list"]').text()).toContain('Work laptop'))
    expect(renamed.bodies).toEqual([{ id: 7, name: 'Work laptop' }])
    await vi.waitFor(() => expect(document.activeElement?.id).toBe('passkey-rename-7'))
  })

  it("shows the IAM's refusal at the field", async () => {
    answer('POST', '/api/auth/passkeys/rename', 400, { ok: false, error: 'Validation failed', fields: { name: 'At most 64 characters' } })
    const page = await openEditor()
    await page.find('form.inline-edit').trigger('submit')
    await vi.waitFor(() => expect(page.find('#passkey-rename-field-7-error').text()).toBe('At most 64 characters'))
  })

  it('keeps the name on Cancel and gives focus back to Rename', async () => {
    const renamed = answer('POST', '/api/auth/passkeys/rename', 200, { ok: true })
    const page = await openEditor()
    await page.findAll('form.inline-edit button').find((b) => b.text() === 'Cancel')!.trigger('click')
    await vi.waitFor(() => expect(document.activeElement?.id).toBe('passkey-rename-7'))
    expect(page.find('[data-testid="passkey-list"]').text()).toContain('Laptop')
    expect(renamed.bodies).toEqual([])
  })
})
