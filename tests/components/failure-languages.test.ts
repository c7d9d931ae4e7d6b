/**
 * The sign-in, sign-up, forgot-password and reset-password pages say a failed call in the page's
 * language, chosen by the answer's `code` (composables/failure-words.ts), never the IAM's English
 * `error` sentence. Each page here reads German and meets a rate limit and a refusal whose English
 * sentence the IAM sent beside its code.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { mountSuspended } from '@nuxt/test-utils/runtime'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { defineComponent, h } from 'vue'
import ForgotPasswordPage from '../../pages/forgot-password.vue'
import LoginPage from '../../pages/login.vue'
import ResetPasswordPage from '../../pages/reset-password.vue'
import SignupPage from '../../pages/signup.vue'
import { answer } from './bff'

const de = JSON.parse(readFileSync(join(process.cwd(), 'i18n', 'locales', 'de.json'), 'utf8')) as {
  formError: Record<string, string>
  errors: Record<string, string>
}
const ENGLISH = 'An English sentence of the IAM'
/** a wait of an hour, as the German catalogue says it */
const rateLimited = de.formError.rateLimitedWait!.replace('{wait}', '60 Minuten')
const alertText = (page: Awaited<ReturnType<typeof mountSuspended>>) => page.find('.alert[role="alert"]').text()

describe('auth pages in German', () => {
  // the first switch loads the German catalogue: seconds on a loaded 2-core runner
  beforeEach(async () => {
    await useNuxtApp().$i18n.setLocale('de')
  }, 30_000)
  afterEach(async () => {
    await useNuxtApp().$i18n.setLocale('en')
  })

  it('the sign-in page says a rate limit and a device refusal in German', async () => {
    for (const [status, body, expected] of [
      [429, { ok: false, retry: 3600, error: ENGLISH }, rateLimited],
      [403, { ok: false, code: 'device_banned', error: ENGLISH }, de.errors.device_banned],
    ] as const) {
      answer('POST', '/api/auth/login', status, body)
      const page = await mountSuspended(LoginPage, { route: '/login' })
      await page.find('input#email').setValue('ada@example.com')
      await page.find('input#password').setValue('correct horse battery staple')
      await page.find('form').trigger('submit')
      await vi.waitFor(() => expect(alertText(page)).toBe(expected))
      page.unmount()
    }
  })

  it('the sign-up page says a rate limit in German', async () => {
    answer('POST', '/api/auth/signup', 429, { ok: false, retry: 3600, error: ENGLISH })
    const page = await mountSuspended(SignupPage, { route: '/signup' })
    await page.find('input#name').setValue('Ada')
    await page.find('input#email').setValue('ada@example.com')
    await page.find('input#password').setValue('correct horse battery')
    await page.find('input#confirmedPassword').setValue('correct horse battery')
    await page.find('input#termsConsent').setValue(true)
    await page.find('form').trigger('submit')
    await vi.waitFor(() => expect(alertText(page)).toBe(rateLimited))
  })

  it('the forgot-password page says a rate limit in German', async () => {
    answer('POST', '/api/auth/forgot-password', 429, { ok: false, retry: 3600, error: ENGLISH })
    const page = await mountSuspended(ForgotPasswordPage, { route: '/forgot-password' })
    await page.find('input#email').setValue('ada@example.com')
    await page.find('form').trigger('submit')
    await vi.waitFor(() => expect(alertText(page)).toBe(rateLimited))
  })

  it('the reset-password page says a refused new password at its field in German', async () => {
    answer('GET', '/api/auth/reset-password', 200, { ok: true })
    answer('POST', '/api/auth/reset-password', 400, { ok: false, code: 'password_rejected', error: ENGLISH, fields: { password: ENGLISH } })
    const page = await mountSuspended(ResetPasswordPage, { route: '/reset-password?token=t0k&random=r4nd&reason=reset_password&visitor=v1s' })
    await vi.waitFor(() => expect(page.find('[role="status"]').exists()).toBe(false))
    await page.find('input#password').setValue('a new long passphrase')
    await page.find('input#confirmedPassword').setValue('a new long passphrase')
    await page.find('form').trigger('submit')
    await vi.waitFor(() => expect(page.find('#password-error').text()).toBe(de.errors.password_rejected))
  })
})

/** useFailureWords as a page gets it (it needs a component's setup for its i18n). */
async function failureWords(): Promise<ReturnType<typeof useFailureWords>> {
  let words: ReturnType<typeof useFailureWords> | undefined
  await mountSuspended(
    defineComponent({
      setup() {
        words = useFailureWords()
        return () => h('div')
      },
    }),
  )
  return words!
}

describe('failure banners', () => {
  const validation = { status: 400, body: { ok: false, error: 'Validation failed', code: 'validation_failed' as const, fields: { email: 'Enter a valid email address.' } } }

  it('never shows the IAM validation title to a person', async () => {
    const { describeFailure } = await failureWords()
    expect(describeFailure(validation)).toBe('Enter a valid email address.')
    expect(describeFailure({ status: 400, body: { ok: false, error: 'Validation failed', code: 'validation_failed', fields: {} } })).toBe('Please check the form and try again.')
  })

  it('shows no banner when every field message is beside its field on the form, and a field message without a field in the banner', async () => {
    const { formFailure } = await failureWords()
    expect(formFailure(validation, ['email', 'password'])).toBeNull()
    expect(formFailure(validation, ['password'])).toBe('Enter a valid email address.')
  })

  it('reads a wait that arrived as the Retry-After header digits, and says try later without one', async () => {
    const { describeFailure, formFailure } = await failureWords()
    expect(describeFailure({ status: 429, body: { ok: false, error: 'Too many requests', retry: '840' } })).toBe('Too many attempts. Try again in 14 minutes.')
    expect(formFailure({ status: 429, body: { ok: false, retry: 30 } }, ['email'])).toBe('Too many attempts. Try again in 30 seconds.')
    expect(describeFailure({ status: 429, body: { ok: false, error: 'Too many requests' } })).toBe('Too many attempts from this network. Try again later or contact support.')
  })

  it('says a known code in the catalogue words, and only an unknown code with the IAM sentence', async () => {
    const { describeFailure } = await failureWords()
    expect(describeFailure({ status: 409, body: { ok: false, code: 'email_taken', error: ENGLISH } })).not.toBe(ENGLISH)
    expect(describeFailure({ status: 409, body: { ok: false, code: 'email_taken', error: ENGLISH } })).toBe(describeFailure({ status: 409, body: { ok: false, code: 'email_taken' } }))
    expect(describeFailure({ status: 409, body: { ok: false, code: 'a_code_from_a_newer_iam', error: ENGLISH } })).toBe(ENGLISH)
  })
})

describe('validation refusals in the page language', () => {
  beforeEach(async () => {
    await useNuxtApp().$i18n.setLocale('de')
  }, 30_000)
  afterEach(async () => {
    await useNuxtApp().$i18n.setLocale('en')
  })

  /** a counted German message's form: 0 for one, 1 for other (German has two) */
  const form = (key: string, n: 0 | 1, count: number) => de.formError[key]!.split('|')[n]!.trim().replace('{count}', String(count))
  const refused = (fieldIssues: Record<string, unknown>) => ({
    status: 400,
    body: { ok: false, error: 'Validation failed', code: 'validation_failed' as const, fields: Object.fromEntries(Object.keys(fieldIssues).map((key) => [key, ENGLISH])), fieldIssues },
  })

  it("says each refused field's issue code in German, never the IAM's English sentence", async () => {
    const { fieldErrorsOf } = await failureWords()
    const result = refused({
      url: { code: 'too_long', limit: 2048 },
      name: { code: 'required' },
      eventTypes: { code: 'too_many', limit: 1 },
      description: { code: 'too_short', limit: 12 },
      retries: { code: 'too_large', limit: 10000 },
      since: { code: 'invalid' },
    })
    expect(fieldErrorsOf(result)).toEqual({
      url: form('fieldTooLong', 1, 2048),
      name: de.formError.fieldRequired,
      eventTypes: form('fieldTooMany', 0, 1),
      description: form('fieldTooShort', 1, 12),
      // a number the sentence names is written as the language writes numbers
      retries: de.formError.fieldTooLarge!.replace('{limit}', '10.000'),
      since: de.formError.fieldInvalid,
    })
  })

  it("keeps the IAM's sentence for an issue code the page does not know (an IAM newer than the pages), and for a bound that is no whole number", async () => {
    const { fieldErrorsOf } = await failureWords()
    expect(fieldErrorsOf(refused({ url: { code: 'too_fancy' } }))).toEqual({ url: ENGLISH })
    expect(fieldErrorsOf(refused({ url: { code: 'too_long', limit: '2048' } }))).toEqual({ url: de.formError.fieldInvalid })
  })

  it('says in the banner, in German, a refused field the form has no place for', async () => {
    const { formFailure, describeFailure } = await failureWords()
    const result = refused({ url: { code: 'invalid' }, description: { code: 'too_long', limit: 500 } })
    expect(formFailure(result, ['url'])).toBe(form('fieldTooLong', 1, 500))
    expect(describeFailure(result)).toBe(`${de.formError.fieldInvalid} ${form('fieldTooLong', 1, 500)}`)
  })
})
