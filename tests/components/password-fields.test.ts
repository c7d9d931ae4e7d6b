/**
 * The new-password fields of sign-up, reset, change and email verification: the strength meter
 * (the IAM's own zxcvbn-ts estimate, loaded on first use) says the strength in words in a polite
 * live region the input points to; "Show password" is a toggle button; an answer whose `warnings`
 * say the breach check was skipped is said to the person.
 */
import { mountSuspended } from '@nuxt/test-utils/runtime'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import FlashNotices from '../../components/FlashNotices.vue'
import PasswordChangeForm from '../../components/PasswordChangeForm.vue'
import ResetPasswordPage from '../../pages/reset-password.vue'
import SignupPage from '../../pages/signup.vue'
import { answer } from './bff'

const UNCHECKED = 'We could not check this password against known breaches right now, so it was accepted unchecked. If you use it anywhere else, choose a new one on your account page.'

describe('password strength meter', () => {
  it('says a long run of one letter is very weak, and why, in a polite live region the input points to', async () => {
    const page = await mountSuspended(SignupPage, { route: '/signup' })
    await page.find('input#password').setValue('aaaaaaaaaaaa')
    const meter = page.find('#password-strength')
    await vi.waitFor(() => expect(meter.text()).toContain('Very weak'))
    expect(meter.text()).toBe('Strength: Very weak. A repeated character like "aaa" is easy to guess. Add more words that are less common.')
    expect(meter.attributes('aria-live')).toBe('polite')
    expect(page.find('input#password').attributes('aria-describedby')?.split(' ')).toContain('password-strength')
  })

  it('says a passphrase of several words is very strong', async () => {
    const page = await mountSuspended(SignupPage, { route: '/signup' })
    await page.find('input#password').setValue('correct horse battery staple 42')
    await vi.waitFor(() => expect(page.find('#password-strength').text()).toBe('Strength: Very strong.'))
  })

  it('judges the email typed on the form as a password very weak', async () => {
    const page = await mountSuspended(SignupPage, { route: '/signup' })
    await page.find('input#email').setValue('ada.lovelace@example.com')
    await page.find('input#password').setValue('ada.lovelace@example.com')
    await vi.waitFor(() => expect(page.find('#password-strength').text()).toContain('It contains your name or email address.'))
    expect(page.find('#password-strength').text()).toMatch(/^Strength: Very weak\./)
  })

  it('says nothing while the field is empty', async () => {
    const page = await mountSuspended(SignupPage, { route: '/signup' })
    expect(page.find('#password-strength').text()).toBe('')
    expect(page.find('.strength-bar').exists()).toBe(false)
  })

  it('is on the reset page and the password change form, with the account details as words to avoid', async () => {
    answer('GET', '/api/auth/reset-password', 200, { ok: true })
    const reset = await mountSuspended(ResetPasswordPage, { route: '/reset-password?token=t&random=r&reason=reset_password&visitor=v' })
    await reset.find('input#password').setValue('aaaaaaaaaaaa')
    await vi.waitFor(() => expect(reset.find('#password-strength').text()).toMatch(/^Strength: Very weak\./))

    const change = await mountSuspended(PasswordChangeForm, { props: { email: 'ada@example.com', name: 'Ada Lovelace' } })
    await change.find('input#new-password').setValue('adalovelace2026')
    await vi.waitFor(() => expect(change.find('#new-password-strength').text()).toContain('It contains your name or email address.'))
  })
})

describe('password strength meter in German', () => {
  // the first switch loads the German catalogue: seconds on a loaded 2-core runner
  beforeEach(async () => {
    await useNuxtApp().$i18n.setLocale('de')
  }, 30_000)
  afterEach(async () => {
    await useNuxtApp().$i18n.setLocale('en')
  })

  it("says the strength, what makes the password guessable and what to do in the page's language", async () => {
    const page = await mountSuspended(SignupPage, { route: '/signup' })
    await page.find('input#password').setValue('aaaaaaaaaaaa')
    await vi.waitFor(() =>
      expect(page.find('#password-strength').text()).toBe(
        'Stärke: Sehr schwach. Ein wiederholtes Zeichen wie „aaa“ ist leicht zu erraten. Fügen Sie weitere, weniger gängige Wörter hinzu.',
      ),
    )
    await page.find('input#password').setValue('correct horse battery staple 42')
    await vi.waitFor(() => expect(page.find('#password-strength').text()).toBe('Stärke: Sehr stark.'))
  })
})

describe('show password toggle', () => {
  it('is a button with aria-pressed that shows and hides the password', async () => {
    const page = await mountSuspended(SignupPage, { route: '/signup' })
    const input = page.find('input#password')
    const toggle = page.find('button[aria-controls="password"]')
    expect(toggle.attributes('type')).toBe('button')
    expect(toggle.text()).toBe('Show password for Password')
    expect(toggle.attributes('aria-pressed')).toBe('false')
    expect(input.attributes('type')).toBe('password')
    await toggle.trigger('click')
    expect(toggle.attributes('aria-pressed')).toBe('true')
    expect(input.attributes('type')).toBe('text')
    await toggle.trigger('click')
    expect(toggle.attributes('aria-pressed')).toBe('false')
    expect(input.attributes('type')).toBe('password')
  })

  it('toggles each password field on its own', async () => {
    const page = await mountSuspended(SignupPage, { route: '/signup' })
    await page.find('button[aria-controls="confirmedPassword"]').trigger('click')
    expect(page.find('input#confirmedPassword').attributes('type')).toBe('text')
    expect(page.find('input#password').attributes('type')).toBe('password')
  })
})

describe('a password accepted without the breach check', () => {
  it('sign-up leaves the notice for the next page, which shows it as a status once', async () => {
    answer('POST', '/api/auth/signup', 201, { ok: true, signedIn: true, warnings: ['breach_check_skipped'] })
    const page = await mountSuspended(SignupPage, { route: '/signup' })
    await page.find('input#name').setValue('Ada')
    await page.find('input#email').setValue('ada@example.com')
    await page.find('input#password').setValue('correct horse battery staple 42')
    await page.find('input#confirmedPassword').setValue('correct horse battery staple 42')
    await page.find('input#termsConsent').setValue(true)
    await page.find('form').trigger('submit')
    await vi.waitFor(async () => {
      const next = await mountSuspended(FlashNotices, { route: '/account' })
      expect(next.find('.alert[role="status"]').text()).toBe(UNCHECKED)
    })
    const later = await mountSuspended(FlashNotices, { route: '/tokens' })
    expect(later.find('.alert').exists()).toBe(false)
  })

  it('a sign-up answer without warnings leaves nothing for the next page', async () => {
    const page = await mountSuspended(SignupPage, { route: '/signup' })
    await page.find('input#name').setValue('Ada')
    await page.find('input#email').setValue('ada@example.com')
    await page.find('input#password').setValue('correct horse battery staple 42')
    await page.find('input#confirmedPassword').setValue('correct horse battery staple 42')
    await page.find('input#termsConsent').setValue(true)
    const signup = answer('POST', '/api/auth/signup', 201, { ok: true, signedIn: true })
    await page.find('form').trigger('submit')
    await vi.waitFor(() => expect(signup.bodies).toHaveLength(1))
    const next = await mountSuspended(FlashNotices, { route: '/account' })
    expect(next.find('.alert').exists()).toBe(false)
  })

  it('a no-JS form post brings the notice as ?notice=, and an unknown code shows nothing', async () => {
    const fromQuery = await mountSuspended(FlashNotices, { route: '/account?notice=breach_check_skipped' })
    expect(fromQuery.find('.alert[role="status"]').text()).toBe(UNCHECKED)
    const unknown = await mountSuspended(FlashNotices, { route: '/account?notice=made_up_code' })
    expect(unknown.find('.alert').exists()).toBe(false)
  })

  it('the password change form says it beside its success notice', async () => {
    answer('POST', '/api/auth/change-password', 200, { ok: true, signedIn: true, warnings: ['breach_check_skipped'] })
    const form = await mountSuspended(PasswordChangeForm, { props: { email: 'ada@example.com' } })
    await form.find('input#current-password').setValue('the old passphrase')
    await form.find('input#new-password').setValue('correct horse battery staple 42')
    await form.find('input#confirm-new-password').setValue('correct horse battery staple 42')
    await form.find('form').trigger('submit')
    await vi.waitFor(() => expect(form.find('.alert.info').text()).toBe(UNCHECKED))
  })
})
