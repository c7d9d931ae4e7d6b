/**
 * pages/login.vue in the Nuxt environment: its own validation before any call, the pending state
 * while the BFF answers, and the banner for each answer the page maps (401, 429 with and without a
 * wait, 5xx, the no-JS `?error=` codes).
 */
import { mountSuspended } from '@nuxt/test-utils/runtime'
import { describe, expect, it, vi } from 'vitest'
import LoginPage from '../../pages/login.vue'
import { answer, held } from './bff'

async function fill(route = '/login') {
  const page = await mountSuspended(LoginPage, { route })
  await page.find('input#email').setValue('ada@example.com')
  await page.find('input#password').setValue('correct horse battery staple')
  return page
}
const alertText = (page: Awaited<ReturnType<typeof mountSuspended>>) => page.find('.alert[role="alert"]').text()

describe('login page', () => {
  it('asks for the email and the password before calling the BFF', async () => {
    const login = answer('POST', '/api/auth/login', 200, { ok: true, signedIn: true })
    const page = await mountSuspended(LoginPage, { route: '/login' })
    await page.find('form').trigger('submit')
    expect(page.find('#email-error').text()).toBe('Enter your email address.')
    expect(page.find('#password-error').text()).toBe('Enter your password.')
    expect(page.find('input#email').attributes('aria-invalid')).toBe('true')
    expect(login.bodies).toEqual([])
  })

  it('fills in the address an app named (login_hint passed on as ?email=), and ignores one that is not an address', async () => {
    const hinted = await mountSuspended(LoginPage, { route: '/login?email=ada%40example.com' })
    expect((hinted.find('input#email').element as HTMLInputElement).value).toBe('ada@example.com')
    const junk = await mountSuspended(LoginPage, { route: '/login?email=not%20an%20address' })
    expect((junk.find('input#email').element as HTMLInputElement).value).toBe('')
  })

  it('marks the email field for passkey autofill (the browser may list passkeys there) and keeps it the username field', async () => {
    const page = await mountSuspended(LoginPage, { route: '/login' })
    expect(page.find('input#email').attributes('autocomplete')).toBe('username webauthn')
    expect(page.find('input#password').attributes('autocomplete')).toBe('current-password')
  })

  it('disables the button and says so while the sign-in is pending', async () => {
    const { gate, release } = held()
    answer('POST', '/api/auth/login', 401, { ok: false, error: 'Invalid credentials' }, gate)
    const page = await fill()
    await page.find('form').trigger('submit')
    const button = page.find('button[type="submit"]')
    await vi.waitFor(() => expect(button.text()).toBe('Signing in…'))
    expect(button.attributes('disabled')).toBeDefined()
    release()
    await vi.waitFor(() => expect(button.text()).toBe('Sign in'))
    expect(button.attributes('disabled')).toBeUndefined()
  })

  it('sends the trimmed email and the password', async () => {
    const login = answer('POST', '/api/auth/login', 401, {})
    const page = await mountSuspended(LoginPage, { route: '/login' })
    await page.find('input#email').setValue('  ada@example.com ')
    await page.find('input#password').setValue(' pass word ')
    await page.find('form').trigger('submit')
    await vi.waitFor(() => expect(login.bodies).toEqual([{ email: 'ada@example.com', password: ' pass word ' }]))
  })

  it.each([
    [401, { ok: false, error: 'Invalid credentials' }, 'The email or password is incorrect.'],
    [429, { ok: false, retry: 30 }, 'Too many attempts. Try again in 30 seconds.'],
    [429, { ok: false, retry: 1 }, 'Too many attempts. Try again in 1 second.'],
    // a minute or more in whole minutes, rounded up: never a count of hundreds of seconds
    [429, { ok: false, retry: 863 }, 'Too many attempts. Try again in 15 minutes.'],
    [429, { ok: false, retry: 840 }, 'Too many attempts. Try again in 14 minutes.'],
    [429, { ok: false, retry: 60 }, 'Too many attempts. Try again in 1 minute.'],
    [429, { ok: false, retry: 59 }, 'Too many attempts. Try again in 59 seconds.'],
    [429, { ok: false }, 'Too many attempts from this network. Try again later or contact support.'],
    [202, { ok: true, mfa: true, message: 'Check your email to continue.' }, 'For your security we sent a sign-in link to your email. Open it to continue.'],
    [403, { ok: false, error: 'Forbidden' }, 'Forbidden'],
    [503, { ok: false, error: 'The sign-in service is unavailable. Please try again in a moment.' }, 'Something went wrong on our side. Please try again.'],
  ])('shows the banner for a %i answer', async (status, body, message) => {
    answer('POST', '/api/auth/login', status, body)
    const page = await fill()
    await page.find('form').trigger('submit')
    await vi.waitFor(() => expect(alertText(page)).toBe(message))
  })

  it('shows the field messages of a 400 answer beside their fields, and no "Validation failed" banner', async () => {
    answer('POST', '/api/auth/login', 400, { ok: false, error: 'Validation failed', fields: { email: 'Enter a valid email address.' } })
    const page = await fill()
    await page.find('form').trigger('submit')
    await vi.waitFor(() => expect(page.find('#email-error').text()).toBe('Enter a valid email address.'))
    expect(page.find('.alert').exists()).toBe(false)
  })

  it.each([
    ['invalid_credentials', 'The email or password is incorrect.'],
    ['rate_limited', 'Too many attempts. Wait a few minutes and try again.'],
    ['unavailable', 'The sign-in service is unavailable right now. Please try again shortly.'],
    ['mfa_required', 'For your security we sent a sign-in link to your email. Open it to continue.'],
    ['second_factor_needs_js', 'This account uses two-step sign-in, which needs JavaScript in this browser. Turn it on and sign in again.'],
    // the wait the refused form post came back with (server/utils/bff/input.ts formReply)
    ['rate_limited&retry=840', 'Too many attempts. Try again in 14 minutes.'],
    ['rate_limited&retry=soon', 'Too many attempts. Wait a few minutes and try again.'],
  ])('shows the banner for the no-JS error code %s', async (code, message) => {
    const page = await mountSuspended(LoginPage, { route: `/login?error=${code}` })
    expect(alertText(page)).toBe(message)
  })

  it.each([
    ['copied', /^Your session was ended for your safety: its sign-in was used from another place as well/],
    ['password', /^Your session was ended because the password was changed\./],
    ['elsewhere', /^This session was signed out from another device\./],
    ['expired', /^Your session expired\./],
  ])('names the reason a session ended (?ended=%s)', async (why, sentence) => {
    const page = await mountSuspended(LoginPage, { route: `/login?returnTo=/account&ended=${why}` })
    expect(page.find('.alert[role="status"]').text()).toMatch(sentence)
  })

  it('says why a session ended when the account page sent the person here', async () => {
    const page = await mountSuspended(LoginPage, { route: '/login?returnTo=/account&ended=1' })
    expect(page.find('.alert[role="status"]').text()).toBe('Your session has ended. Please sign in again.')
  })

  it('shows no banner for an unknown error code', async () => {
    const page = await mountSuspended(LoginPage, { route: '/login?error=%3Cscript%3E' })
    expect(page.find('.alert[role="alert"]').exists()).toBe(false)
  })

  it('asks for the second factor when the password was right and the account has one', async () => {
    answer('POST', '/api/auth/login', 200, { ok: true, secondFactor: { challenge: 'c'.repeat(43) } })
    const page = await fill()
    await page.find('form').trigger('submit')
    await vi.waitFor(() => expect(page.find('input#password').exists()).toBe(false))
    expect(page.find('#second-factor-heading').text()).toBe('Two-step sign-in')
  })

  it('drops the arrival notice ("You have signed out.") once the second step shows', async () => {
    answer('POST', '/api/auth/login', 200, { ok: true, secondFactor: { challenge: 'c'.repeat(43) } })
    const page = await fill('/login?signedOut=1')
    expect(page.text()).toContain('You have signed out.')
    await page.find('form').trigger('submit')
    await vi.waitFor(() => expect(page.find('#second-factor-heading').exists()).toBe(true))
    expect(page.text()).not.toContain('You have signed out.')
  })
})

describe('an account scheduled for deletion (the right password, server/api/auth/restore-link.post.ts)', () => {
  // noon UTC: the same day in every time zone the tests may run in
  const DUE = '2026-12-05T12:00:00.000Z'
  async function pending() {
    answer('POST', '/api/auth/login', 403, { ok: false, error: 'This account is scheduled for deletion on 5 December 2026. Ask for the restore link to keep it.', deletionPending: true, dueAt: DUE })
    const page = await fill()
    await page.find('form').trigger('submit')
    await vi.waitFor(() => expect(page.find('[data-testid="deletion-pending"]').exists()).toBe(true))
    return page
  }
  type LoginPageWrapper = Awaited<ReturnType<typeof fill>>
  const restoreButton = (page: LoginPageWrapper) => page.findAll('button').find((b) => b.text().startsWith('Send'))!
  const restoreForm = (page: LoginPageWrapper) => page.findAll('form').find((f) => f.attributes('action') === '/api/auth/restore-link')!

  it('says the day in words and offers the restore link, with no "incorrect password" banner', async () => {
    const page = await pending()
    expect(alertText(page)).toBe('This account is scheduled for deletion on 5 December 2026.')
    expect(page.find('time').attributes('datetime')).toBe(DUE)
    expect(restoreButton(page).text()).toBe('Send the restore link')
    expect(page.text()).not.toContain('incorrect')
    expect((page.find('input#password').element as HTMLInputElement).value).toBe('')
  })

  it('sends the restore link and says where it went (the address masked)', async () => {
    const { gate, release } = held()
    const restore = answer('POST', '/api/auth/restore-link', 200, { ok: true, data: { sentTo: 'a***@example.com', dueAt: DUE } }, gate)
    const page = await pending()
    await restoreForm(page).trigger('submit')
    await vi.waitFor(() => expect(restoreButton(page).text()).toBe('Sending…'))
    expect(restoreButton(page).attributes('disabled')).toBeDefined()
    release()
    await vi.waitFor(() => expect(page.find('[data-testid="restore-sent"]').text()).toBe('We sent the restore link to a***@example.com. Open it to keep your account, then sign in.'))
    expect(page.find('[data-testid="deletion-pending"]').exists()).toBe(false)
    expect(restore.bodies).toHaveLength(1)
  })

  it.each([
    [400, { ok: false, error: 'This request for the restore link has expired or was already used. Sign in again to ask for it.' }, 'This request for the restore link has expired or was already used. Sign in again to ask for it.'],
    [409, { ok: false, code: 'deletion_not_pending', error: 'The IAM sentence' }, 'This account is no longer scheduled for deletion: sign in with your password.'],
  ])('ends the offer with the refusal in words (%i)', async (status, body, message) => {
    answer('POST', '/api/auth/restore-link', status, body)
    const page = await pending()
    await restoreForm(page).trigger('submit')
    await vi.waitFor(() => expect(alertText(page)).toBe(message))
    expect(page.find('[data-testid="deletion-pending"]').exists()).toBe(false)
  })

  it('keeps the offer and says the wait after a 429', async () => {
    answer('POST', '/api/auth/restore-link', 429, { ok: false, retry: 120 })
    const page = await pending()
    await restoreForm(page).trigger('submit')
    await vi.waitFor(() => expect(page.find('#restore-error').text()).toBe('Too many attempts. Try again in 2 minutes.'))
    expect(restoreButton(page).exists()).toBe(true)
  })

  it('shows the state from a no-JS post (?error=deletion_pending&due=) with a form that posts without JavaScript', async () => {
    const page = await mountSuspended(LoginPage, { route: `/login?error=deletion_pending&due=${encodeURIComponent(DUE)}` })
    expect(alertText(page)).toBe('This account is scheduled for deletion on 5 December 2026.')
    const posted = restoreForm(page)
    expect(posted.attributes('method')).toBe('post')
    expect(posted.find('input[name="_csrf"]').exists()).toBe(true)
    expect(posted.find('button[type="submit"]').text()).toBe('Send the restore link')
  })

  it.each([
    ['/login?restore=sent', '.alert[role="status"]', 'We sent the restore link to the account’s email address. Open it to keep your account, then sign in.'],
    ['/login?error=restore_expired', '.alert[role="alert"]', 'This request for the restore link has expired or was already used. Sign in again to ask for it.'],
    ['/login?error=deletion_pending&due=soon', '.alert[role="alert"]', null],
  ])('after a no-JS restore post, %s says so', async (path, selector, message) => {
    const page = await mountSuspended(LoginPage, { route: path })
    if (message === null) expect(page.find(selector).exists()).toBe(false)
    else expect(page.find(selector).text()).toBe(message)
  })
})

describe('second sign-in step (the login page after a right password)', () => {
  const CHALLENGE = 'c'.repeat(43)
  async function secondStep() {
    answer('POST', '/api/auth/login', 200, { ok: true, secondFactor: { challenge: CHALLENGE } })
    const page = await fill()
    await page.find('form').trigger('submit')
    await vi.waitFor(() => expect(page.find('input#totp-code').exists()).toBe(true))
    return page
  }

  it('asks for the app code, or a recovery code once switched, before calling the BFF', async () => {
    const step = answer('POST', '/api/auth/second-factor', 200, { ok: true, signedIn: true })
    const page = await secondStep()
    await page.find('form').trigger('submit')
    expect(page.find('#totp-code-error').text()).toBe('Enter the 6-digit code from your authenticator app.')
    await page.find('button.secondary').trigger('click')
    await page.find('form').trigger('submit')
    expect(page.find('#recovery-code-error').text()).toBe('Enter one of your recovery codes.')
    expect(step.bodies).toEqual([])
  })

  it('disables the button while the code is checked, sends it with the challenge, and explains a wrong one', async () => {
    const { gate, release } = held()
    const step = answer('POST', '/api/auth/second-factor', 401, { ok: false }, gate)
    const page = await secondStep()
    await page.find('input#totp-code').setValue(' 123456 ')
    await page.find('form').trigger('submit')
    const button = page.find('button[type="submit"]')
    await vi.waitFor(() => expect(button.text()).toBe('Checking…'))
    expect(button.attributes('disabled')).toBeDefined()
    release()
    await vi.waitFor(() => expect(page.find('#totp-code-error').text()).toBe('That code is not valid. Try again.'))
    expect(step.bodies).toEqual([{ challenge: CHALLENGE, code: '123456' }])
  })

  it('goes back to the password with a banner when the step has ended', async () => {
    answer('POST', '/api/auth/second-factor', 401, { ok: false, restart: true })
    const page = await secondStep()
    await page.find('input#totp-code').setValue('123456')
    await page.find('form').trigger('submit')
    await vi.waitFor(() => expect(alertText(page)).toBe('That sign-in step has ended. Enter your password again.'))
    expect(page.find('input#password').exists()).toBe(true)
  })

  it('says the account\'s code entry is locked and when to try again', async () => {
    // said from the code in the page language, not the IAM sentence in `message`
    const lock = 'Too many wrong codes: code entry is locked for now. Try again in 15 minutes.'
    answer('POST', '/api/auth/second-factor', 429, { ok: false, error: 'Too many requests', code: 'code_entry_locked', retry: 900, message: 'Too many wrong codes for this account. Code entry is locked; try again in 15 minutes.' })
    const page = await secondStep()
    await page.find('input#totp-code').setValue('123456')
    await page.find('form').trigger('submit')
    await vi.waitFor(() => expect(page.find('#totp-code-error').text()).toBe(lock))
  })

  it('shows the rate-limit wait beside the code', async () => {
    answer('POST', '/api/auth/second-factor', 429, { ok: false, retry: 40 })
    const page = await secondStep()
    await page.find('input#totp-code').setValue('123456')
    await page.find('form').trigger('submit')
    await vi.waitFor(() => expect(page.find('#totp-code-error').text()).toBe('Too many attempts. Try again in 40 seconds.'))
  })
})

describe('login page, an organization that requires its own sign-in', () => {
  const CONNECTION = '4b0e3a52-7f1d-4c55-9a51-2f0c8e6d9a10'
  const refusal = { ok: false, date: '2026-11-29T12:00:00.000Z', error: 'Your organization signs you in through its identity provider', code: 'sso_required', connectionId: CONNECTION, startUrl: `https://id.example.test/sso/saml/${CONNECTION}/start` }

  it('replaces the password with the organization sign-in when the password is refused with sso_required, and shows no banner', async () => {
    answer('POST', '/api/auth/login', 403, refusal)
    const page = await fill('/login?returnTo=%2Forgs')
    await page.find('form').trigger('submit')
    await vi.waitFor(() => expect(page.find('[data-testid="sso-continue"]').exists()).toBe(true))
    expect(page.find('[data-testid="sso-continue"] p').text()).toBe('Your organization signs you in through its identity provider. Continue there to sign in with this address.')
    expect(page.find('[data-testid="sso-continue"] a').attributes('href')).toBe(`/sso/saml/${CONNECTION}/start?returnTo=%2Forgs`)
    expect(page.find('input#password').exists()).toBe(false)
    expect(page.find('.alert[role="alert"]').exists()).toBe(false)
    expect(page.text()).not.toContain('sso_required')
  })

  it('offers the organization sign-in when a sign-in mail is refused with sso_required', async () => {
    answer('GET', '/api/auth/email-sign-in', 200, { ok: true, data: { link: true, code: false } })
    const ask = answer('POST', '/api/auth/email-sign-in', 403, refusal)
    const page = await mountSuspended(LoginPage, { route: '/login' })
    await page.find('input#email').setValue('ada@example.com')
    await vi.waitFor(() => expect(page.find('[data-testid="email-sign-in-offers"] button').exists()).toBe(true))
    await page.find('[data-testid="email-sign-in-offers"] button').trigger('click')
    await vi.waitFor(() => expect(page.find('[data-testid="sso-continue"] a').exists()).toBe(true))
    expect(ask.bodies).toHaveLength(1)
    expect(page.find('.alert[role="alert"]').exists()).toBe(false)
  })

  it('keeps the password field and the generic banner for a 403 that names no valid connection', async () => {
    answer('POST', '/api/auth/login', 403, { ...refusal, connectionId: '../../elsewhere' })
    const page = await fill()
    await page.find('form').trigger('submit')
    await vi.waitFor(() => expect(page.find('.alert[role="alert"]').exists()).toBe(true))
    expect(page.find('[data-testid="sso-continue"]').exists()).toBe(false)
    expect(page.find('input#password').exists()).toBe(true)
  })
})
