/** components/PasskeySignup.vue: the address step's own checks, then each BFF answer worded from its code. */
import { mountSuspended } from '@nuxt/test-utils/runtime'
import { describe, expect, it, vi } from 'vitest'
import PasskeySignup from '../../components/PasskeySignup.vue'
import { answer } from './bff'

const CONNECTION = '0b9f3c2e-4d1a-4f6b-9c8d-2e7a5b1c3d4f'
const props = { name: 'Ada', email: 'ada@example.com', terms: true, remember: false, termsUrl: null }

async function atCodeStep() {
  answer('POST', '/api/auth/passkey-signup/start', 200, { ok: true, message: 'A mail is on its way' })
  const view = await mountSuspended(PasskeySignup, { props })
  await view.find('form').trigger('submit')
  await vi.waitFor(() => expect(view.find('input#pk-code').exists()).toBe(true))
  return view
}

describe('sign-up with a passkey', () => {
  it('explains every invalid field of the address step and calls nothing', async () => {
    const start = answer('POST', '/api/auth/passkey-signup/start', 200, { ok: true })
    const view = await mountSuspended(PasskeySignup, { props: { ...props, name: '', email: 'nope', terms: false } })
    await view.find('form').trigger('submit')
    expect(view.find('#pk-name-error').text()).toBe('Enter your name.')
    expect(view.find('#pk-email-error').text()).toBe('Enter an email address like name@example.com.')
    expect(view.find('#pk-terms-error').text()).toBe('You need to accept the terms to create an account.')
    expect(start.bodies).toEqual([])
  })

  it('sends the address with the terms consent as "on", then says a mail is on its way whatever the address', async () => {
    const start = answer('POST', '/api/auth/passkey-signup/start', 200, { ok: true, message: 'x' })
    const view = await mountSuspended(PasskeySignup, { props })
    await view.find('form').trigger('submit')
    await vi.waitFor(() => expect(view.text()).toContain('A mail is on its way to ada@example.com.'))
    expect(start.bodies).toEqual([{ email: 'ada@example.com', name: 'Ada', termsConsent: 'on' }])
  })

  it('says a locked code entry with its wait in the banner', async () => {
    const view = await atCodeStep()
    answer('POST', '/api/auth/passkey-signup/options', 429, { ok: false, error: 'Too many requests', code: 'code_entry_locked', retry: 600 })
    await view.find('input#pk-code').setValue('1234567')
    await view.find('form').trigger('submit')
    await vi.waitFor(() => expect(view.find('.alert[role="alert"]').text()).toContain('10 minutes'))
  })

  it('says a wrong code at the field from its code', async () => {
    const view = await atCodeStep()
    answer('POST', '/api/auth/passkey-signup/options', 401, { ok: false, error: 'Invalid or expired code', code: 'code_invalid' })
    await view.find('input#pk-code').setValue('1234567')
    await view.find('form').trigger('submit')
    await vi.waitFor(() => expect(view.find('#pk-code-error').text()).toBe('That code is not valid or has expired.'))
  })

  it('refuses a code of the wrong shape before any call', async () => {
    const view = await atCodeStep()
    const options = answer('POST', '/api/auth/passkey-signup/options', 200, { ok: true })
    await view.find('input#pk-code').setValue('12')
    await view.find('form').trigger('submit')
    expect(view.find('#pk-code-error').exists()).toBe(true)
    expect(options.bodies).toEqual([])
  })

  it('says no passkey was created when the browser gives none, and keeps the code step', async () => {
    const view = await atCodeStep()
    answer('POST', '/api/auth/passkey-signup/options', 200, { ok: true, data: { options: { challenge: 'AAAA', rp: { name: 'x', id: 'localhost' }, user: { id: 'AAAA', name: 'a', displayName: 'a' }, pubKeyCredParams: [] }, ceremonyId: 'c' } })
    await view.find('input#pk-code').setValue('1234567')
    await view.find('form').trigger('submit')
    await vi.waitFor(() => expect(view.text()).toContain('No passkey was created. Try again when you are ready.'))
    expect(view.find('input#pk-code').exists()).toBe(true)
  })

  it('shows the organization sign-in when the domain requires it', async () => {
    answer('POST', '/api/auth/passkey-signup/start', 403, { ok: false, error: 'x', code: 'sso_required', connectionId: CONNECTION, startUrl: `/sso/saml/${CONNECTION}/start` })
    const view = await mountSuspended(PasskeySignup, { props })
    await view.find('form').trigger('submit')
    await vi.waitFor(() => expect(view.find('[data-testid="sso-continue"]').exists()).toBe(true))
    expect(view.find('[data-testid="sso-continue"] a').attributes('href')).toContain(`/sso/saml/${CONNECTION}/start`)
  })
})
