/** pages/auth/mfa.vue (adaptive-MFA link): link check, the 7-digit code's own check, the answers the page maps. */
import { mountSuspended } from '@nuxt/test-utils/runtime'
import { describe, expect, it, vi } from 'vitest'
import MfaPage from '../../pages/auth/mfa.vue'
import { answer, held } from './bff'

const LINK = '/auth/mfa?token=t0k&random=r4nd&reason=login&visitor=v1s'
const INVALID = 'This sign-in link is invalid, has expired or was already used.'

async function validLink() {
  answer('GET', '/api/auth/mfa', 200, { ok: true })
  const page = await mountSuspended(MfaPage, { route: LINK })
  await vi.waitFor(() => expect(page.find('button[type="submit"]').attributes('disabled')).toBeUndefined())
  return page
}

async function submitCode(page: Awaited<ReturnType<typeof validLink>>, code: string) {
  await page.find('input#code').setValue(code)
  await page.find('form').trigger('submit')
}

describe('MFA link page', () => {
  it('keeps the button disabled until the link is checked, and says an incomplete link is invalid', async () => {
    const { gate, release } = held()
    answer('GET', '/api/auth/mfa', 200, { ok: true }, gate)
    const page = await mountSuspended(MfaPage, { route: LINK })
    expect(page.find('button[type="submit"]').attributes('disabled')).toBeDefined()
    expect(page.find('[role="status"]').text()).toBe('Checking your link…')
    release()
    await vi.waitFor(() => expect(page.find('button[type="submit"]').attributes('disabled')).toBeUndefined())
    const incomplete = await mountSuspended(MfaPage, { route: '/auth/mfa?token=t0k' })
    expect(incomplete.text()).toContain(INVALID)
  })

  it('asks for exactly 7 digits before posting', async () => {
    const verify = answer('POST', '/api/auth/mfa', 200, { ok: true, signedIn: true })
    const page = await validLink()
    await submitCode(page, '12345')
    expect(page.find('#code-error').text()).toBe('Enter the 7-digit code from the email.')
    expect(verify.bodies).toEqual([])
  })

  it('disables the button while the code is checked and sends it', async () => {
    const { gate, release } = held()
    const verify = answer('POST', '/api/auth/mfa', 401, { ok: false }, gate)
    const page = await validLink()
    await submitCode(page, ' 1234567 ')
    await vi.waitFor(() => expect(page.find('button[type="submit"]').attributes('disabled')).toBeDefined())
    release()
    await vi.waitFor(() => expect(page.find('#code-error').text()).toBe('That code is not valid or has expired.'))
    expect(verify.bodies).toEqual([{ code: '1234567' }])
  })

  it('treats a 400 answer as a link that no longer works', async () => {
    answer('POST', '/api/auth/mfa', 400, { ok: false, error: 'Invalid link' })
    const page = await validLink()
    await submitCode(page, '1234567')
    await vi.waitFor(() => expect(page.text()).toContain(INVALID))
  })

  it.each([
    [429, { ok: false, retry: 60 }, 'Too many attempts. Try again in 1 minute.'],
    [503, {}, 'Something went wrong on our side. Please try again.'],
  ])('shows the banner for a %i answer', async (status, body, message) => {
    answer('POST', '/api/auth/mfa', status, body)
    const page = await validLink()
    await submitCode(page, '1234567')
    await vi.waitFor(() => expect(page.find('.alert[role="alert"]').text()).toBe(message))
  })
})
