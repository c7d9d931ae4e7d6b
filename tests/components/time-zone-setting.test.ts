/**
 * The account's time zone on the overview (components/TimeZoneSetting.vue): it shows the zone the
 * account's emails use, offers the zones this browser knows, saves a chosen one with a confirmation
 * naming it, offers this device's zone in one step, and says at the field what went wrong: a name
 * no zone has (before any call), the IAM's `time_zone_unsupported`, or a failed call.
 */
import { mountSuspended } from '@nuxt/test-utils/runtime'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import OverviewPage from '../../pages/account/index.vue'
import { answer } from './bff'

const signedIn = (timeZone: string | null) => ({ authenticated: true, userId: 'u-1', email: 'ada@example.com', emailVerified: true, name: 'Ada', roles: [], timeZone })
const DEVICE = Intl.DateTimeFormat().resolvedOptions().timeZone

beforeEach(() => {
  answer('GET', '/api/auth/session', 200, signedIn('Europe/Berlin'))
  answer('GET', '/api/auth/sign-in-methods', 200, { ok: true, data: { password: true, totp: false, passkeys: 0, providers: [] } })
})

async function overview() {
  const page = await mountSuspended(OverviewPage, { route: '/account', attachTo: document.body })
  await vi.waitFor(() => expect(page.find('input#time-zone').exists()).toBe(true))
  return page
}
const submit = (page: Awaited<ReturnType<typeof overview>>) => page.find('#time-zone-setting form').trigger('submit')

describe('the time zone setting', () => {
  it('shows the zone the emails use in a labelled field with the zones to pick from', async () => {
    const page = await overview()
    expect(page.find('#time-zone-heading').text()).toBe('Time zone')
    await vi.waitFor(() => expect(page.find('[data-testid="time-zone-current"]').text()).toBe('Your emails use: Europe/Berlin'))
    expect(page.find('label[for="time-zone"]').text()).toBe('Zone for your emails')
    expect((page.find('input#time-zone').element as HTMLInputElement).value).toBe('Europe/Berlin')
    expect(page.find('input#time-zone').attributes('list')).toBe('time-zone-options')
    const options = page.findAll('#time-zone-options option').map((o) => o.attributes('value'))
    expect(options).toContain('UTC')
    expect(options).toContain('Europe/Berlin')
  })

  it('says UTC is used while no zone is set', async () => {
    answer('GET', '/api/auth/session', 200, signedIn(null))
    const page = await overview()
    await vi.waitFor(() => expect(page.find('[data-testid="time-zone-current"]').text()).toContain('UTC'))
  })

  it('saves the chosen zone and confirms it by name', async () => {
    const saved = answer('POST', '/api/auth/profile', 200, { ok: true, data: { name: 'Ada', locale: null, timeZone: 'Asia/Kathmandu' } })
    const page = await overview()
    answer('GET', '/api/auth/session', 200, signedIn('Asia/Kathmandu'))
    await page.find('input#time-zone').setValue(' Asia/Kathmandu ')
    await submit(page)
    await vi.waitFor(() => expect(page.find('#time-zone-setting [role="status"]').text()).toBe('Time zone saved: your emails now give their times in Asia/Kathmandu.'))
    expect(saved.bodies).toEqual([{ timeZone: 'Asia/Kathmandu' }])
    await vi.waitFor(() => expect(page.find('[data-testid="time-zone-current"]').text()).toBe('Your emails use: Asia/Kathmandu'))
  })

  it('saves this device zone in one step when it differs from the account zone', async () => {
    answer('GET', '/api/auth/session', 200, signedIn(DEVICE === 'Pacific/Chatham' ? 'Asia/Kathmandu' : 'Pacific/Chatham'))
    const saved = answer('POST', '/api/auth/profile', 200, { ok: true, data: { name: 'Ada', locale: null, timeZone: DEVICE } })
    const page = await overview()
    await vi.waitFor(() => expect(page.find('[data-testid="time-zone-device"]').exists()).toBe(true))
    expect(page.find('[data-testid="time-zone-device"]').text()).toBe(`Use this device's zone (${DEVICE})`)
    await page.find('[data-testid="time-zone-device"]').trigger('click')
    await vi.waitFor(() => expect(saved.bodies).toEqual([{ timeZone: DEVICE }]))
    await vi.waitFor(() => expect(page.find('#time-zone-setting [role="status"]').text()).toContain(DEVICE))
  })

  it('names a zone this browser does not know at the field without asking the IAM', async () => {
    const saved = answer('POST', '/api/auth/profile', 200, { ok: true, data: { name: 'Ada', locale: null, timeZone: 'x' } })
    const page = await overview()
    for (const [typed, message] of [['Mars/Olympus_Mons', 'That is not a time zone we know.'], ['  ', 'Enter a time zone']] as const) {
      await page.find('input#time-zone').setValue(typed)
      await submit(page)
      await vi.waitFor(() => expect(page.find('#time-zone-error').text()).toContain(message))
      expect(page.find('input#time-zone').attributes('aria-invalid')).toBe('true')
      expect(page.find('input#time-zone').attributes('aria-describedby')).toContain('time-zone-error')
    }
    expect(saved.bodies).toEqual([])
  })

  it('shows the refusal of the IAM and a failed call at the field in words', async () => {
    const page = await overview()
    answer('POST', '/api/auth/profile', 400, { ok: false, code: 'time_zone_unsupported', error: 'This time zone is not known', fields: { timeZone: 'An IANA time zone name' } })
    await page.find('input#time-zone').setValue('Europe/Kyiv')
    await submit(page)
    await vi.waitFor(() => expect(page.find('#time-zone-error').text()).toBe('That time zone is not known. Pick one from the list, for example Europe/Berlin or UTC.'))
    answer('POST', '/api/auth/profile', 503, { ok: false, code: 'service_unavailable', error: 'down' })
    await submit(page)
    await vi.waitFor(() => expect(page.find('#time-zone-error').text()).not.toContain('not known'))
    expect(page.find('#time-zone-error').text().length).toBeGreaterThan(10)
    expect(page.find('#time-zone-setting [role="status"]').exists()).toBe(false)
  })
})
