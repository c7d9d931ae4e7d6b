/**
 * The admin console's frame (AdminPage) around its pages: the heading and navigation on every
 * page, the way back on a detail page, the notice in place of the content for an account without
 * the role, and the content once the IAM answered.
 */
import { mountSuspended } from '@nuxt/test-utils/runtime'
import { afterEach, describe, expect, it, vi } from 'vitest'
import AccountsPage from '../../pages/admin/index.vue'
import OrgPage from '../../pages/admin/orgs/[id].vue'
import { answer } from './bff'

const NOW = '2026-01-02T03:04:05.000Z'
const SIGNED_IN = { authenticated: true, userId: 'u-1', email: 'ada@example.com', emailVerified: true, name: 'Ada', roles: [] }

const mounted: Array<{ unmount(): void }> = []
afterEach(() => {
  for (const wrapper of mounted.splice(0)) wrapper.unmount()
  clearNuxtState()
})

describe('the admin frame', () => {
  it('tells an account without the role that it needs it, under the heading and navigation, with no list', async () => {
    answer('GET', '/api/auth/session', 200, SIGNED_IN)
    answer('GET', '/api/admin/users', 403, { ok: false, error: 'Platform administrators only', code: 'not_admin' })
    const page = await mountSuspended(AccountsPage, { route: '/admin' })
    mounted.push(page)
    await vi.waitFor(() => expect(page.find('[data-testid="admin-forbidden"]').exists()).toBe(true))
    expect(page.find('h1').text()).toBe('Administration')
    expect(page.find('nav[aria-label="Administration"]').exists()).toBe(true)
    expect(page.find('#accounts-heading').exists()).toBe(false)
    expect(page.find('.page.wide > p a').exists()).toBe(false)
    // a new installation: the way to become the first administrator
    const setup = page.find('[data-testid="admin-forbidden"] a[href="/admin/bootstrap"]')
    expect(setup.text()).toBe('Become the first administrator')
  })

  it('shows a detail page with its way back once the IAM answered', async () => {
    answer('GET', '/api/auth/session', 200, SIGNED_IN)
    answer('GET', '/api/admin/orgs/o-1', 200, {
      ok: true,
      data: { org: { id: 'o-1', slug: 'acme', name: 'Acme', createdAt: NOW, members: 1 }, members: [], roles: [], invitations: [] },
    })
    const page = await mountSuspended(OrgPage, { route: '/admin/orgs/o-1' })
    mounted.push(page)
    await vi.waitFor(() => expect(page.find('h2').exists()).toBe(true))
    expect(page.find('h2').text()).toBe('Acme')
    expect(page.find('.page.wide > p a').text()).toBe('Back to organizations')
    expect(page.find('[role="status"]').exists()).toBe(false)
    expect(page.find('#org-members-heading').text()).toBe('Members')
  })

  it('marks a member the organization identity provider deactivated, and only that member', async () => {
    answer('GET', '/api/auth/session', 200, SIGNED_IN)
    const member = (email: string, deactivatedAt: string | null) => ({ userId: email, email, name: '', role: 'member', roleName: 'member', since: NOW, deactivatedAt })
    answer('GET', '/api/admin/orgs/o-2', 200, {
      ok: true,
      data: { org: { id: 'o-2', slug: 'acme', name: 'Acme', createdAt: NOW, members: 2 }, members: [member('on@acme.test', null), member('off@acme.test', NOW)], roles: [], invitations: [] },
    })
    const page = await mountSuspended(OrgPage, { route: '/admin/orgs/o-2' })
    mounted.push(page)
    await vi.waitFor(() => expect(page.find('h2').exists()).toBe(true))
    const rows = page.findAll('section[aria-labelledby="org-members-heading"] li')
    expect(rows.map((row) => row.find('[data-testid="member-deactivated"]').exists())).toEqual([false, true])
    expect(rows[1]!.find('[data-testid="member-deactivated"]').text()).toBe('Deactivated by the identity provider')
  })
})
