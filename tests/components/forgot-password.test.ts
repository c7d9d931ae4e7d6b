/** pages/forgot-password.vue: the address is required, the same notice whatever the account, banners per answer. */
import { mountSuspended } from '@nuxt/test-utils/runtime'
import { describe, expect, it, vi } from 'vitest'
import ForgotPasswordPage from '../../pages/forgot-password.vue'
import { answer, held } from './bff'

const SENT = 'If an account exists for that address, we sent a link to reset the password. Check your email.'

async function submitted(email = 'ada@example.com') {
  const page = await mountSuspended(ForgotPasswordPage, { route: '/forgot-password' })
  await page.find('input#email').setValue(email)
  await page.find('form').trigger('submit')
  return page
}

describe('forgot-password page', () => {
  it('asks for the address before calling the BFF', async () => {
    const forgot = answer('POST', '/api/auth/forgot-password', 200, { ok: true })
    const page = await submitted('  ')
    expect(page.find('#email-error').text()).toBe('Enter the email address of your account.')
    expect(forgot.bodies).toEqual([])
  })

  it('disables the button while the request is pending, then shows the notice that names no account', async () => {
    const { gate, release } = held()
    const forgot = answer('POST', '/api/auth/forgot-password', 200, { ok: true }, gate)
    const page = await submitted(' ada@example.com ')
    await vi.waitFor(() => expect(page.find('button[type="submit"]').attributes('disabled')).toBeDefined())
    release()
    await vi.waitFor(() => expect(page.find('.alert.success').text()).toBe(SENT))
    expect(page.find('form').exists()).toBe(false)
    expect(forgot.bodies).toEqual([{ email: 'ada@example.com' }])
  })

  it('shows the notice for the no-JS ?error=sent return', async () => {
    const page = await mountSuspended(ForgotPasswordPage, { route: '/forgot-password?error=sent' })
    expect(page.find('.alert.success').text()).toBe(SENT)
  })

  it.each([
    [429, { ok: false, retry: 3600 }, 'Too many attempts. Try again in 60 minutes.'],
    [503, { ok: false, error: 'unavailable' }, 'Something went wrong on our side. Please try again.'],
  ])('shows the banner for a %i answer', async (status, body, message) => {
    answer('POST', '/api/auth/forgot-password', status, body)
    const page = await submitted()
    await vi.waitFor(() => expect(page.find('.alert[role="alert"]').text()).toBe(message))
  })

  it("shows a 400 answer's email message beside the field instead of a banner", async () => {
    answer('POST', '/api/auth/forgot-password', 400, { ok: false, error: 'Invalid input', fields: { email: 'Enter a valid email address.' } })
    const page = await submitted('ada@')
    await vi.waitFor(() => expect(page.find('#email-error').text()).toBe('Enter a valid email address.'))
    expect(page.find('.alert[role="alert"]').exists()).toBe(false)
  })
})

describe('forgot-password page, an organization that requires its own sign-in', () => {
  it('sends the person to the organization sign-in instead of saying a mail went out', async () => {
    const connectionId = '4b0e3a52-7f1d-4c55-9a51-2f0c8e6d9a10'
    answer('POST', '/api/auth/forgot-password', 403, { ok: false, error: 'Your organization signs you in through its identity provider', code: 'sso_required', connectionId, startUrl: `https://id.example.test/sso/saml/${connectionId}/start` })
    const page = await submitted('ada@corp.example')
    await vi.waitFor(() => expect(page.find('[data-testid="sso-continue"]').exists()).toBe(true))
    expect(page.find('[data-testid="sso-continue"] p').text()).toBe('Your organization signs you in through its identity provider. Continue there to sign in with this address.')
    expect(page.find('[data-testid="sso-continue"] a').attributes('href')).toBe(`/sso/saml/${connectionId}/start?returnTo=%2Faccount`)
    expect(page.find('.alert.success').exists()).toBe(false)
    expect(page.find('.alert[role="alert"]').exists()).toBe(false)
  })
})
