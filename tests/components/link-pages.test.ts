/**
 * The pages links in emails land on: auth/confirm (custom actions, email change), auth/verify-email
 * and auth/undo-email-change. Each checks the link before offering its button, keeps the button
 * disabled while checking or pending, and maps the BFF's answers to a banner.
 */
import { mountSuspended } from '@nuxt/test-utils/runtime'
import { describe, expect, it, vi } from 'vitest'
import ConfirmPage from '../../pages/auth/confirm.vue'
import UndoEmailChangePage from '../../pages/auth/undo-email-change.vue'
import VerifyEmailPage from '../../pages/auth/verify-email.vue'
import { answer, held } from './bff'

const query = (reason: string) => `token=t0k&random=r4nd&reason=${reason}&visitor=v1s`
const SIGNED_IN = { authenticated: true, userId: 'u-1', email: 'ada@example.com', emailVerified: true, roles: [] }

describe('confirm page (custom actions)', () => {
  async function ready(reason = 'revoke_all_tokens') {
    answer('GET', '/api/auth/session', 200, SIGNED_IN)
    answer('GET', '/api/auth/confirm', 200, { ok: true })
    const page = await mountSuspended(ConfirmPage, { route: `/auth/confirm?${query(reason)}` })
    await vi.waitFor(() => expect(page.find('form').exists()).toBe(true))
    return page
  }

  it('asks a signed-out browser to sign in first, returning to the link', async () => {
    answer('GET', '/api/auth/session', 200, { authenticated: false })
    const page = await mountSuspended(ConfirmPage, { route: `/auth/confirm?${query('revoke_all_tokens')}` })
    await vi.waitFor(() => expect(page.find('.alert.info').text()).toBe('Sign in on this device first, then open the link again.'))
    expect(page.find('a[href^="/login?returnTo="]').attributes('href')).toBe(`/login?returnTo=${encodeURIComponent(`/auth/confirm?${query('revoke_all_tokens')}`)}`)
  })

  it('says a refused link is invalid', async () => {
    answer('GET', '/api/auth/session', 200, SIGNED_IN)
    answer('GET', '/api/auth/confirm', 400, { ok: false })
    const page = await mountSuspended(ConfirmPage, { route: `/auth/confirm?${query('revoke_all_tokens')}` })
    await vi.waitFor(() => expect(page.text()).toContain('This confirmation link is invalid, has expired or was already used.'))
  })

  it('asks for the 7-digit code (and a new address for an email change) before posting', async () => {
    const posted = answer('POST', '/api/auth/email', 200, { ok: true })
    const page = await ready('change_email')
    await page.find('input#newEmail').setValue('ada@')
    await page.find('input#code').setValue('12')
    await page.find('form').trigger('submit')
    expect(page.find('#code-error').text()).toBe('Enter the 7-digit code from the email.')
    expect(page.find('#newEmail-error').text()).toBe('Enter an email address like name@example.com.')
    expect(posted.bodies).toEqual([])
  })

  it('disables the button while pending; a wrong code (401) is explained beside the field', async () => {
    const { gate, release } = held()
    answer('POST', '/api/auth/confirm', 401, { ok: false }, gate)
    const page = await ready()
    await page.find('input#code').setValue('1234567')
    await page.find('form').trigger('submit')
    await vi.waitFor(() => expect(page.find('button[type="submit"]').attributes('disabled')).toBeDefined())
    release()
    await vi.waitFor(() => expect(page.find('#code-error').text()).toBe('That code is not valid or has expired.'))
  })

  it('shows the sign-in step when the session ended meanwhile', async () => {
    answer('POST', '/api/auth/confirm', 401, { ok: false, signedOut: true })
    const page = await ready()
    await page.find('input#code').setValue('1234567')
    await page.find('form').trigger('submit')
    await vi.waitFor(() => expect(page.find('.alert.info').text()).toBe('Sign in on this device first, then open the link again.'))
  })

  it('posts the email change and says the address changes once the link sent to it is opened', async () => {
    const posted = answer('POST', '/api/auth/email', 200, { ok: true })
    const page = await ready('change_email')
    await page.find('input#newEmail').setValue(' new@example.com ')
    await page.find('input#code').setValue('1234567')
    await page.find('form').trigger('submit')
    await vi.waitFor(() => expect(page.find('.alert.success').text()).toBe('We sent a link to your new address: your address changes once you open it. Your account page shows the change waiting.'))
    expect(posted.bodies).toEqual([{ code: '1234567', newEmail: 'new@example.com' }])
  })

  it.each([
    [409, { ok: false, error: 'That address belongs to another account.' }, 'That address belongs to another account.'],
    [429, { ok: false, retry: 8 }, 'Too many attempts. Try again in 8 seconds.'],
  ])('shows the banner for a %i answer', async (status, body, message) => {
    answer('POST', '/api/auth/email', status, body)
    const page = await ready('change_email')
    await page.find('input#newEmail').setValue('new@example.com')
    await page.find('input#code').setValue('1234567')
    await page.find('form').trigger('submit')
    await vi.waitFor(() => expect(page.find('.alert[role="alert"]').text()).toBe(message))
  })
})

describe('verify-email page', () => {
  it('keeps the button disabled while the link is checked, and says an incomplete link is invalid', async () => {
    const { gate, release } = held()
    answer('GET', '/api/auth/verify-email', 200, { ok: true }, gate)
    const page = await mountSuspended(VerifyEmailPage, { route: `/auth/verify-email?${query('verify_email')}` })
    expect(page.find('button').attributes('disabled')).toBeDefined()
    release()
    await vi.waitFor(() => expect(page.find('button').attributes('disabled')).toBeUndefined())
    const incomplete = await mountSuspended(VerifyEmailPage, { route: '/auth/verify-email?token=t0k' })
    expect(incomplete.text()).toContain('This link is invalid, has expired or was already used.')
  })

  it('confirms the address only when the button is pressed', async () => {
    answer('GET', '/api/auth/verify-email', 200, { ok: true })
    const posted = answer('POST', '/api/auth/verify-email', 200, { ok: true })
    const page = await mountSuspended(VerifyEmailPage, { route: `/auth/verify-email?${query('verify_email')}` })
    await vi.waitFor(() => expect(page.find('button').attributes('disabled')).toBeUndefined())
    expect(posted.bodies).toEqual([])
    await page.find('button').trigger('click')
    await vi.waitFor(() => expect(page.find('[role="status"]').text()).toBe('Your email address is confirmed.'))
    expect(posted.bodies).toHaveLength(1)
  })

  it.each([
    [429, { ok: false, retry: 30 }, 'Too many attempts. Try again in 30 seconds.'],
    [401, { ok: false, error: 'Invalid link' }, 'Invalid link'],
  ])('shows the banner when confirming gets %i', async (status, body, message) => {
    answer('GET', '/api/auth/verify-email', 200, { ok: true })
    answer('POST', '/api/auth/verify-email', status, body)
    const page = await mountSuspended(VerifyEmailPage, { route: `/auth/verify-email?${query('verify_email')}` })
    await vi.waitFor(() => expect(page.find('button').attributes('disabled')).toBeUndefined())
    await page.find('button').trigger('click')
    await vi.waitFor(() => expect(page.find('.alert[role="alert"]').text()).toBe(message))
  })
})

describe('undo-email-change page', () => {
  async function ready() {
    answer('GET', '/api/auth/undo-email-change', 200, { ok: true })
    const page = await mountSuspended(UndoEmailChangePage, { route: `/auth/undo-email-change?${query('undo_email_change')}` })
    await vi.waitFor(() => expect(page.find('button').attributes('disabled')).toBeUndefined())
    return page
  }

  it('says a refused link is invalid and offers no button', async () => {
    answer('GET', '/api/auth/undo-email-change', 401, { ok: false })
    const page = await mountSuspended(UndoEmailChangePage, { route: `/auth/undo-email-change?${query('undo_email_change')}` })
    await vi.waitFor(() => expect(page.text()).toContain('This link is invalid, has expired or was already used.'))
    expect(page.find('button').exists()).toBe(false)
  })

  it('disables the button while the undo is pending, then says every session was signed out', async () => {
    const { gate, release } = held()
    answer('POST', '/api/auth/undo-email-change', 200, { ok: true }, gate)
    answer('GET', '/api/auth/session', 200, { authenticated: false })
    const page = await ready()
    await page.find('button').trigger('click')
    await vi.waitFor(() => expect(page.find('button').attributes('disabled')).toBeDefined())
    release()
    await vi.waitFor(() => expect(page.find('[role="status"]').text()).toBe('Your previous email address is back and every session was signed out.'))
  })

  it.each([
    [409, {}, 'Your previous address now belongs to another account. Contact support.'],
    [429, { ok: false }, 'Too many attempts from this network. Try again later or contact support.'],
    [500, {}, 'Something went wrong on our side. Please try again.'],
  ])('shows the banner for a %i answer', async (status, body, message) => {
    answer('POST', '/api/auth/undo-email-change', status, body)
    const page = await ready()
    await page.find('button').trigger('click')
    await vi.waitFor(() => expect(page.find('.alert[role="alert"]').text()).toBe(message))
  })
})
