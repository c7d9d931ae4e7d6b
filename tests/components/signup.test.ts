/** pages/signup.vue: every field's own check before a call, the pending state, and the banner per BFF answer. */
import { mountSuspended, registerEndpoint } from '@nuxt/test-utils/runtime'
import { defineEventHandler, getQuery, setResponseStatus } from 'h3'
import { describe, expect, it, vi } from 'vitest'
import SignupPage from '../../pages/signup.vue'
import { answer, held } from './bff'

async function filled(route = '/signup') {
  const page = await mountSuspended(SignupPage, { route })
  await page.find('input#name').setValue('Ada')
  await page.find('input#email').setValue('ada@example.com')
  await page.find('input#password').setValue('correct horse battery')
  await page.find('input#confirmedPassword').setValue('correct horse battery')
  await page.find('input#termsConsent').setValue(true)
  return page
}

describe('signup page', () => {
  it('explains every invalid field and calls nothing', async () => {
    const signup = answer('POST', '/api/auth/signup', 201, { ok: true, signedIn: true })
    const page = await mountSuspended(SignupPage, { route: '/signup' })
    await page.find('input#email').setValue('not-an-address')
    await page.find('input#password').setValue('short')
    await page.find('input#confirmedPassword').setValue('other')
    await page.find('form').trigger('submit')
    expect(page.find('#name-error').text()).toBe('Enter your name.')
    expect(page.find('#email-error').text()).toBe('Enter an email address like name@example.com.')
    expect(page.find('#password-error').text()).toBe('Use at least 12 characters.')
    expect(page.find('#confirmedPassword-error').text()).toBe('The passwords do not match.')
    expect(page.find('#termsConsent-error').text()).toBe('You need to accept the terms to create an account.')
    expect(page.find('input#termsConsent').attributes('aria-invalid')).toBe('true')
    expect(signup.bodies).toEqual([])
  })

  it('disables the button while the account is being created, and sends the terms consent as "on"', async () => {
    const { gate, release } = held()
    const signup = answer('POST', '/api/auth/signup', 409, { ok: false, error: 'Conflict' }, gate)
    const page = await filled()
    await page.find('form').trigger('submit')
    const button = page.find('button[type="submit"]')
    await vi.waitFor(() => expect(button.text()).toBe('Creating…'))
    expect(button.attributes('disabled')).toBeDefined()
    release()
    await vi.waitFor(() => expect(button.attributes('disabled')).toBeUndefined())
    expect(signup.bodies).toEqual([
      { name: 'Ada', email: 'ada@example.com', password: 'correct horse battery', confirmedPassword: 'correct horse battery', termsConsent: 'on' },
    ])
  })

  it.each([
    [409, { ok: false, error: 'Conflict' }, 'An account with this email address already exists. Sign in instead'],
    [429, { ok: false, retry: 12 }, 'Too many attempts. Try again in 12 seconds.'],
    [403, { ok: false, error: 'Signup is closed for this domain.' }, 'Signup is closed for this domain.'],
    [500, { ok: false, error: 'boom' }, 'Something went wrong on our side. Please try again.'],
  ])('shows the banner for a %i answer', async (status, body, message) => {
    answer('POST', '/api/auth/signup', status, body)
    const page = await filled()
    await page.find('form').trigger('submit')
    await vi.waitFor(() => expect(page.find('.alert[role="alert"]').text()).toBe(message))
  })

  it("puts a 400 answer's field messages beside their fields, with no banner repeating the IAM's title", async () => {
    answer('POST', '/api/auth/signup', 400, { ok: false, error: 'Validation failed', fields: { email: 'This address cannot receive mail.' } })
    const page = await filled()
    await page.find('form').trigger('submit')
    await vi.waitFor(() => expect(page.find('#email-error').text()).toBe('This address cannot receive mail.'))
    expect(page.find('.alert').exists()).toBe(false)
    expect(page.text()).not.toContain('Validation failed')
  })

  it('says in the banner what a 400 field message without a field on the form is about', async () => {
    answer('POST', '/api/auth/signup', 400, { ok: false, error: 'Validation failed', fields: { body: 'The text contains characters that are not allowed.' } })
    const page = await filled()
    await page.find('form').trigger('submit')
    await vi.waitFor(() => expect(page.find('.alert[role="alert"]').text()).toBe('The text contains characters that are not allowed.'))
  })

  it('links "Sign in instead" to the sign-in page when the address has an account, keeping returnTo', async () => {
    answer('POST', '/api/auth/signup', 409, { ok: false, error: 'Conflict' })
    const page = await filled('/signup?returnTo=/tokens')
    await page.find('form').trigger('submit')
    await vi.waitFor(() => expect(page.find('.alert[role="alert"] a').text()).toBe('Sign in instead'))
    expect(page.find('.alert[role="alert"] a').attributes('href')).toBe('/login?returnTo=%2Ftokens')
  })

  it.each([
    ['conflict', 'An account with this email address already exists. Sign in instead'],
    ['invalid', 'Please check the form and try again.'],
    ['forbidden', 'This request was refused. If you think this is a mistake, contact support.'],
  ])('shows the banner for the no-JS error code %s', async (code, message) => {
    const page = await mountSuspended(SignupPage, { route: `/signup?error=${code}` })
    expect(page.find('.alert[role="alert"]').text()).toBe(message)
  })
})

describe('signup page, an organization that requires its own sign-in', () => {
  it('offers the organization sign-in, keeping where the person was going, instead of a banner', async () => {
    const connectionId = '4b0e3a52-7f1d-4c55-9a51-2f0c8e6d9a10'
    answer('POST', '/api/auth/signup', 403, { ok: false, error: 'Your organization signs you in through its identity provider', code: 'sso_required', connectionId, startUrl: `https://id.example.test/sso/saml/${connectionId}/start` })
    const page = await filled('/signup?returnTo=%2Forgs')
    await page.find('form').trigger('submit')
    await vi.waitFor(() => expect(page.find('[data-testid="sso-continue"]').exists()).toBe(true))
    expect(page.find('[data-testid="sso-continue"] p').text()).toBe('Your organization signs you in through its identity provider. Continue there to sign in with this address.')
    expect(page.find('[data-testid="sso-continue"] a').attributes('href')).toBe(`/sso/saml/${connectionId}/start?returnTo=%2Forgs`)
    expect(page.find('.alert[role="alert"]').exists()).toBe(false)
  })
})

describe('signup page, from an organization invitation', () => {
  const TOKEN = 'T'.repeat(43)
  const BACK = encodeURIComponent(`/orgs/invitations/accept?token=${TOKEN}`)

  /** The invitation preview answered for TOKEN only; records the tokens the page asked about. */
  function preview(): { tokens: unknown[]; unregister(): void } {
    const tokens: unknown[] = []
    const unregister = registerEndpoint('/api/orgs/invitations/preview', {
      method: 'GET',
      handler: defineEventHandler((event) => {
        const { token } = getQuery(event)
        tokens.push(token)
        if (token !== TOKEN) {
          setResponseStatus(event, 404)
          return { ok: false, error: 'No such invitation' }
        }
        return { ok: true, data: { invitation: { orgName: 'Acme', inviterName: 'Ada', email: 'g***@example.com', invitedEmail: 'grace@example.com', expiresAt: '2030-01-01T00:00:00.000Z' } } }
      }),
    })
    return { tokens, unregister }
  }

  it('fills in the address the IAM names for the invitation token, sends the token with the sign-up, and returns to the invitation', async () => {
    const asked = preview()
    const signup = answer('POST', '/api/auth/signup', 201, { ok: true, signedIn: true })
    const page = await mountSuspended(SignupPage, { route: `/signup?invitation=${TOKEN}&returnTo=${BACK}` })
    await vi.waitFor(() => expect((page.find('input#email').element as HTMLInputElement).value).toBe('grace@example.com'))
    expect(asked.tokens).toEqual([TOKEN])
    expect(page.find('[data-testid="signup-invited"]').text()).toContain('You were invited to join Acme.')
    expect(page.find('input[type="hidden"][name="invitationToken"]').attributes('value')).toBe(TOKEN)
    await page.find('input#name').setValue('Grace')
    await page.find('input#password').setValue('correct horse battery')
    await page.find('input#confirmedPassword').setValue('correct horse battery')
    await page.find('input#termsConsent').setValue(true)
    await page.find('form').trigger('submit')
    await vi.waitFor(() => expect(signup.bodies).toHaveLength(1))
    expect(signup.bodies[0]).toMatchObject({ email: 'grace@example.com', invitationToken: TOKEN })
    // the invitation page is a chunk of its own, loaded on first navigation: slow on a loaded machine (as account.test.ts)
    await vi.waitFor(() => expect(useRouter().currentRoute.value.fullPath).toBe(`/orgs/invitations/accept?token=${TOKEN}`), { timeout: 10_000 })
    asked.unregister()
  })

  it('takes no address from the link, and fills in nothing for a token that names no pending invitation', async () => {
    const asked = preview()
    const page = await mountSuspended(SignupPage, { route: `/signup?invitation=${'U'.repeat(43)}&email=mallory%40example.com` })
    await vi.waitFor(() => expect(asked.tokens).toHaveLength(1))
    expect((page.find('input#email').element as HTMLInputElement).value).toBe('')
    expect(page.find('[data-testid="signup-invited"]').exists()).toBe(false)
    asked.unregister()
  })

  it('asks nothing for a malformed token', async () => {
    const asked = preview()
    const page = await mountSuspended(SignupPage, { route: '/signup?invitation=short' })
    expect(page.find('input[name="invitationToken"]').exists()).toBe(false)
    expect(asked.tokens).toEqual([])
    asked.unregister()
  })
})
