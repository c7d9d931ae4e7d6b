/**
 * The admin console's sign-ups per hour (pages/admin/signups.vue): a table with a caption, the
 * newest hour first and marked as the current one, a row header per hour and the two figures as
 * cells; the totals in words; another period asks the IAM for that many hours; a failure is said
 * in words, not as a table of zeros.
 */
import { registerEndpoint } from '@nuxt/test-utils/runtime'
import { defineEventHandler, getQuery } from 'h3'
import { describe, expect, it, vi } from 'vitest'
import SignupsPage from '../../pages/admin/signups.vue'
import { mountSignedIn } from './admin-mount'
import { answer } from './bff'

const SIGNED_IN = { authenticated: true, userId: 'u-1', email: 'ada@example.com', emailVerified: true, name: 'Ada', roles: ['admin'] }
const hour = (h: number, signups: number, challengesFailed: number) => ({
  hour: `2026-01-02T${String(h).padStart(2, '0')}:00:00.000Z`,
  signups,
  challengesFailed,
  failures: { missing: challengesFailed, invalid: 0, expired: 0, replayed: 0 },
})
const stats = (perHour: ReturnType<typeof hour>[]) => ({
  ok: true,
  data: { perHour, totals: { signups: perHour.reduce((s, h) => s + h.signups, 0), challengesFailed: perHour.reduce((s, h) => s + h.challengesFailed, 0) } },
})

async function mountPage() {
  const page = await mountSignedIn(SignupsPage, '/admin/signups', SIGNED_IN)
  return page
}

describe('the sign-ups page', () => {
  it('shows each hour as a table row, newest first and the current hour marked, with the totals in words', async () => {
    answer('GET', '/api/admin/stats/signups', 200, stats([hour(1, 4, 0), hour(2, 0, 17), hour(3, 2, 1)]))
    const page = await mountPage()
    await vi.waitFor(() => expect(page.find('[data-testid="admin-signups"]').exists()).toBe(true))
    const table = page.find('table')
    expect(table.find('caption').text()).toBe('Sign-ups and refused browser checks per hour, newest first, in your time zone')
    expect(table.findAll('thead th').map((th) => [th.text(), th.attributes('scope')])).toEqual([
      ['Hour from', 'col'],
      ['Sign-ups', 'col'],
      ['Refused checks', 'col'],
    ])
    const rows = table.findAll('tbody tr')
    expect(rows.map((r) => r.find('time').attributes('datetime'))).toEqual(['2026-01-02T03:00:00.000Z', '2026-01-02T02:00:00.000Z', '2026-01-02T01:00:00.000Z'])
    expect(rows.map((r) => r.findAll('td').map((td) => td.text()))).toEqual([['2', '1'], ['0', '17'], ['4', '0']])
    expect(rows[0]!.find('th[scope="row"]').text()).toContain('(so far)')
    expect(rows[1]!.find('th[scope="row"]').text()).not.toContain('(so far)')
    // the bars repeat the numbers for the eye only
    expect(rows[1]!.findAll('.bar').every((bar) => bar.attributes('aria-hidden') === 'true')).toBe(true)
    expect(page.find('[data-testid="admin-signups-totals"]').text()).toBe('Sign-ups: 6. Refused browser checks: 18.')
  })

  it('asks the IAM for the period chosen and shows its figures', async () => {
    const asked: unknown[] = []
    const unregister = registerEndpoint('/api/admin/stats/signups', {
      method: 'GET',
      handler: defineEventHandler((event) => {
        const hours = Number(getQuery(event).hours)
        asked.push(hours)
        return stats(Array.from({ length: hours === 48 ? 2 : 1 }, (_, i) => hour(i, 1, 0)))
      }),
    })
    try {
      const page = await mountPage()
      await vi.waitFor(() => expect(page.findAll('tbody tr')).toHaveLength(1))
      expect(page.find('label[for="signups-period"]').text()).toBe('Period')
      await page.find('#signups-period').setValue('48')
      await vi.waitFor(() => expect(page.findAll('tbody tr')).toHaveLength(2))
      expect(asked).toEqual([24, 48])
    } finally {
      unregister()
    }
  })

  it('says the figures could not be loaded instead of showing a table', async () => {
    answer('GET', '/api/admin/stats/signups', 400, { ok: false, error: 'Validation failed', code: 'validation_failed' })
    const page = await mountPage()
    await vi.waitFor(() => expect(page.text()).toContain('The figures could not be loaded. Reload the page.'))
    expect(page.find('table').exists()).toBe(false)
  })
})
