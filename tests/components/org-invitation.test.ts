/**
 * pages/orgs/invitations/accept.vue, the invitation mail's landing page: the IAM's preview first,
 * then Sign in / Create account returning here (signed out) or Accept (signed in), and each refusal
 * of the IAM in words with what to do.
 */
import { mountSuspended } from '@nuxt/test-utils/runtime'
import { afterEach, describe, expect, it, vi } from 'vitest'
import AcceptPage from '../../pages/orgs/invitations/accept.vue'
import { answer } from './bff'

const TOKEN = 'T'.repeat(43)
const ROUTE = `/orgs/invitations/accept?token=${TOKEN}`
const SIGNED_IN = { authenticated: true, userId: 'u-1', email: 'grace@example.com', emailVerified: true, name: 'Grace', roles: [] }
const PREVIEW = { ok: true, data: { invitation: { orgName: 'Acme', inviterName: 'Ada Lovelace', email: 'g***@example.com', invitedEmail: 'grace@example.com', expiresAt: '2030-01-01T00:00:00.000Z' } } }

// the session state is shared by every mount (useState): unmount, then forget it
const mounted: Array<{ unmount(): void }> = []
afterEach(() => {
  for (const wrapper of mounted.splice(0)) wrapper.unmount()
  clearNuxtState()
})
async function mount(route: string) {
  const page = await mountSuspended(AcceptPage, { route })
  mounted.push(page)
  return page
}

async function signedIn(accept: { status: number; body: Record<string, unknown> }) {
  answer('GET', '/api/auth/session', 200, SIGNED_IN)
  answer('GET', '/api/orgs/invitations/preview', 200, PREVIEW)
  const posted = answer('POST', '/api/orgs/invitations/accept', accept.status, accept.body)
  const page = await mount(ROUTE)
  await vi.waitFor(() => expect(page.find('button').text()).toBe('Accept invitation'))
  await page.find('button').trigger('click')
  return { page, posted }
}

describe('invitation landing page', () => {
  it('tells a signed-out visitor who invited which address to what, and signs in or up back to this page', async () => {
    answer('GET', '/api/auth/session', 200, { authenticated: false })
    answer('GET', '/api/orgs/invitations/preview', 200, PREVIEW)
    const page = await mount(ROUTE)
    await vi.waitFor(() => expect(page.find('[data-testid="invitation-story"]').text()).toMatch(/^Ada Lovelace invited g\*\*\*@example\.com to join Acme\. The invitation is valid until /))
    const back = encodeURIComponent(ROUTE)
    expect(page.find(`a[href="/login?returnTo=${back}"]`).text()).toBe('Sign in')
    // the sign-up page asks the IAM for the invited address by this token, and comes back here
    expect(page.find(`a[href="/signup?invitation=${TOKEN}&returnTo=${back}"]`).text()).toBe('Create account')
    expect(page.text()).not.toContain(TOKEN)
  })

  it('says a used or expired link is dead before anyone signs in, with nothing to press', async () => {
    answer('GET', '/api/auth/session', 200, { authenticated: false })
    answer('GET', '/api/orgs/invitations/preview', 410, { ok: false, error: 'This invitation was used, revoked, or has expired' })
    const page = await mount(ROUTE)
    await vi.waitFor(() => expect(page.find('[role="alert"]').text()).toBe('This invitation was already used, revoked, or has expired. Ask the person who invited you to send a new one.'))
    expect(page.findAll('a[href^="/login"]')).toHaveLength(0)
  })

  it('says an incomplete link is incomplete without asking the server', async () => {
    answer('GET', '/api/auth/session', 200, SIGNED_IN)
    const preview = answer('GET', '/api/orgs/invitations/preview', 200, PREVIEW)
    const page = await mount('/orgs/invitations/accept?token=short')
    await vi.waitFor(() => expect(page.find('[role="alert"]').text()).toContain('This invitation link is incomplete.'))
    expect(preview.bodies).toEqual([])
  })

  it('accepts, sending the token, and links to the organization', async () => {
    const { page, posted } = await signedIn({ status: 200, body: { ok: true, data: { org: { id: 'o-1', slug: 'acme', name: 'Acme', role: 'member' } } } })
    await vi.waitFor(() => expect(page.find('[role="status"]').text()).toBe('You joined Acme as Member.'))
    expect(posted.bodies).toEqual([{ token: TOKEN }])
    expect(page.find('a[href="/orgs/o-1"]').text()).toBe('Open Acme')
  })

  it('says in words when the invitation went to another address, and offers to switch accounts', async () => {
    const { page } = await signedIn({ status: 403, body: { ok: false, error: 'This invitation was sent to another address: sign in with that address to accept it' } })
    await vi.waitFor(() => expect(page.find('[role="alert"]').text()).toContain('This invitation was sent to another email address, not grace@example.com.'))
    expect(page.text()).toContain('Sign out and sign in with another account')
  })

  it('asks for a confirmed address first, with a way to get the link again', async () => {
    const { page } = await signedIn({ status: 403, body: { ok: false, error: 'Confirm your email address before accepting an invitation', verifyEmail: true } })
    await vi.waitFor(() => expect(page.find('[role="alert"]').text()).toContain('Confirm your email address first: open the confirmation link we sent to grace@example.com'))
    expect(page.text()).toContain('Send the confirmation link again')
  })
})
