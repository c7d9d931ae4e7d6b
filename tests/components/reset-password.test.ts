/** pages/reset-password.vue: the link is checked first, the new password's own checks, banners per answer. */
import { mountSuspended } from '@nuxt/test-utils/runtime'
import { describe, expect, it, vi } from 'vitest'
import ResetPasswordPage from '../../pages/reset-password.vue'
import { answer, held } from './bff'

const LINK = '/reset-password?token=t0k&random=r4nd&reason=reset_password&visitor=v1s'
const INVALID = 'This reset link is invalid, has expired or was already used.'

async function validLink() {
  answer('GET', '/api/auth/reset-password', 200, { ok: true })
  const page = await mountSuspended(ResetPasswordPage, { route: LINK })
  await vi.waitFor(() => expect(page.find('[role="status"]').exists()).toBe(false))
  return page
}

async function fillAndSubmit(page: Awaited<ReturnType<typeof validLink>>, password = 'a new long passphrase', repeat = password) {
  await page.find('input#password').setValue(password)
  await page.find('input#confirmedPassword').setValue(repeat)
  await page.find('form').trigger('submit')
}

describe('reset-password page', () => {
  it('says the link is invalid without calling the BFF when a link parameter is missing', async () => {
    const check = answer('GET', '/api/auth/reset-password', 200, { ok: true })
    const page = await mountSuspended(ResetPasswordPage, { route: '/reset-password?token=t0k&random=r4nd' })
    expect(page.text()).toContain(INVALID)
    expect(check.bodies).toEqual([])
  })

  it('says the link is invalid when the BFF refuses it', async () => {
    answer('GET', '/api/auth/reset-password', 401, { ok: false, error: 'Invalid link' })
    const page = await mountSuspended(ResetPasswordPage, { route: LINK })
    await vi.waitFor(() => expect(page.text()).toContain(INVALID))
    expect(page.find('form').exists()).toBe(false)
  })

  it('explains a short or unrepeated password and posts nothing', async () => {
    const reset = answer('POST', '/api/auth/reset-password', 200, { ok: true })
    const page = await validLink()
    await fillAndSubmit(page, 'short', 'shorter')
    expect(page.find('#password-error').text()).toBe('Use at least 12 characters.')
    expect(page.find('#confirmedPassword-error').text()).toBe('The passwords do not match.')
    expect(reset.bodies).toEqual([])
  })

  it('disables the button while pending and revokes the API tokens by default', async () => {
    const { gate, release } = held()
    const reset = answer('POST', '/api/auth/reset-password', 401, { ok: false, error: 'Invalid link' }, gate)
    const page = await validLink()
    await fillAndSubmit(page)
    await vi.waitFor(() => expect(page.find('button[type="submit"]').attributes('disabled')).toBeDefined())
    release()
    await vi.waitFor(() => expect(page.find('button[type="submit"]').attributes('disabled')).toBeUndefined())
    expect(reset.bodies).toEqual([{ password: 'a new long passphrase', confirmedPassword: 'a new long passphrase', revokeApiTokens: true }])
  })

  it.each([
    [429, { ok: false, retry: 5 }, 'Too many attempts. Try again in 5 seconds.'],
    [401, { ok: false, error: 'The link is no longer valid.' }, 'The link is no longer valid.'],
    [502, {}, 'Something went wrong on our side. Please try again.'],
  ])('shows the banner for a %i answer to the new password', async (status, body, message) => {
    answer('POST', '/api/auth/reset-password', status, body)
    const page = await validLink()
    await fillAndSubmit(page)
    await vi.waitFor(() => expect(page.find('.alert[role="alert"]').text()).toBe(message))
  })

  it('shows the rate-limit banner when the link check is rate limited', async () => {
    answer('GET', '/api/auth/reset-password', 429, { ok: false, retry: 9 })
    const page = await mountSuspended(ResetPasswordPage, { route: LINK })
    await vi.waitFor(() => expect(page.find('.alert[role="alert"]').text()).toBe('Too many attempts. Try again in 9 seconds.'))
  })
})
