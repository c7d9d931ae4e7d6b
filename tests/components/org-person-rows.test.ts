/**
 * The rows of an organization's members and pending invitations (OrgPersonRow): the removal asks
 * in place with focus on Cancel, one row at a time; Cancel gives focus back to the button that
 * asked; Confirm removes and says so. A viewer who may not manage sees no actions.
 */
import { mountSuspended } from '@nuxt/test-utils/runtime'
import { afterEach, describe, expect, it, vi } from 'vitest'
import OrgInvitations from '../../components/OrgInvitations.vue'
import OrgMembers from '../../components/OrgMembers.vue'
import { answer } from './bff'

const NOW = '2026-01-02T03:04:05.000Z'
const OWNER = ['organization:read', 'organization:delete', 'members:read', 'members:manage', 'owners:manage', 'invitations:read', 'invitations:manage', 'roles:read', 'roles:manage']
const org = (permissions: string[]) => ({ id: 'o-1', slug: 'acme', name: 'Acme', createdAt: NOW, role: 'owner', roleName: 'owner', permissions })
const invitation = (id: string, email: string) => ({ id, email, role: 'member', roleName: 'member', createdAt: NOW, expiresAt: NOW, status: 'pending' })
const member = (userId: string, name: string, email: string, role = 'member', deactivatedAt: string | null = null) => ({ userId, name, email, role, roleName: role, since: NOW, deactivatedAt })

const mounted: Array<{ unmount(): void }> = []
afterEach(() => {
  for (const wrapper of mounted.splice(0)) wrapper.unmount()
  clearNuxtState()
})

async function mountInvitations(permissions = OWNER) {
  answer('GET', '/api/orgs/o-1/invitations', 200, { ok: true, data: { invitations: [invitation('i-1', 'grace@example.com'), invitation('i-2', 'alan@example.com')] } })
  // attached to the document: the rows move focus, which a detached tree cannot hold
  const list = await mountSuspended(OrgInvitations, { props: { org: org(permissions), roles: [] }, attachTo: document.body })
  mounted.push(list)
  await vi.waitFor(() => expect(list.find('[data-testid="org-invitations"]').exists()).toBe(true))
  return list
}

describe('a pending invitation', () => {
  it('asks in place with focus on Cancel, one row at a time, and Cancel gives focus back to Revoke', async () => {
    const list = await mountInvitations()
    expect(list.find('#invitation-revoke-i-1').attributes('aria-label')).toBe('Revoke the invitation to grace@example.com')
    await list.find('#invitation-revoke-i-1').trigger('click')
    await vi.waitFor(() => expect(list.find('#invitation-confirm-i-1').exists()).toBe(true))
    expect(list.find('#invitation-confirm-i-1-question').text()).toBe('Revoke the invitation to grace@example.com?')
    await vi.waitFor(() => expect(document.activeElement?.textContent?.trim()).toBe('Cancel'))

    await list.find('#invitation-revoke-i-2').trigger('click')
    await vi.waitFor(() => expect(list.find('#invitation-confirm-i-2').exists()).toBe(true))
    expect(list.find('#invitation-confirm-i-1').exists()).toBe(false)
    expect(list.find('#invitation-revoke-i-1').exists()).toBe(true)

    const cancel = list.findAll('#invitation-confirm-i-2 button').find((b) => b.text() === 'Cancel')!
    await cancel.trigger('click')
    await vi.waitFor(() => expect(document.activeElement?.id).toBe('invitation-revoke-i-2'))
    expect(list.find('#invitation-confirm-i-2').exists()).toBe(false)
  })

  it('Confirm revokes it and says so', async () => {
    const revoked = answer('POST', '/api/orgs/o-1/invitations/revoke', 200, { ok: true })
    const list = await mountInvitations()
    await list.find('#invitation-revoke-i-1').trigger('click')
    await vi.waitFor(() => expect(list.find('#invitation-confirm-i-1').exists()).toBe(true))
    await list.findAll('#invitation-confirm-i-1 button').find((b) => b.text() === 'Confirm')!.trigger('click')
    await vi.waitFor(() => expect(list.text()).toContain('The invitation to grace@example.com was revoked; its link no longer works.'))
    expect(revoked.bodies).toEqual([{ invitationId: 'i-1' }])
    expect(list.find('#invitation-confirm-i-1').exists()).toBe(false)
  })

  it('shows no actions to a viewer who may only read', async () => {
    const list = await mountInvitations(['organization:read', 'invitations:read'])
    expect(list.find('[data-testid="org-invitations"]').text()).toContain('grace@example.com')
    expect(list.findAll('[data-testid="org-invitations"] button')).toHaveLength(0)
  })
})

describe('a member', () => {
  it('keeps the role change beside Remove, which asks in place and removes on Confirm', async () => {
    answer('GET', '/api/auth/session', 200, { authenticated: true, userId: 'u-1', email: 'ada@example.com', emailVerified: true, name: 'Ada', roles: [] })
    answer('GET', '/api/orgs/o-1/members', 200, { ok: true, data: { members: [member('u-1', 'Ada', 'ada@example.com', 'owner'), member('u-2', 'Grace Hopper', 'grace@example.com')] } })
    const removed = answer('POST', '/api/orgs/o-1/members/remove', 200, { ok: true })
    const list = await mountSuspended(OrgMembers, { props: { org: org(OWNER), roles: [] }, attachTo: document.body })
    mounted.push(list)
    await vi.waitFor(() => expect(list.find('#member-remove-u-2').exists()).toBe(true))
    expect(list.find('label[for="member-role-u-2"]').text()).toBe('Role of Grace Hopper')
    expect(list.find('#member-remove-u-2').attributes('aria-label')).toBe('Remove Grace Hopper')

    await list.find('#member-remove-u-2').trigger('click')
    await vi.waitFor(() => expect(list.find('#member-confirm-u-2').exists()).toBe(true))
    // the role change gives way to the question while it asks
    expect(list.find('#member-role-u-2').exists()).toBe(false)
    await list.findAll('#member-confirm-u-2 button').find((b) => b.text() === 'Confirm')!.trigger('click')
    await vi.waitFor(() => expect(list.text()).toContain('Grace Hopper was removed from the organization.'))
    expect(removed.bodies).toEqual([{ userId: 'u-2' }])
  })

  it('is marked deactivated when the organization identity provider turned the membership off, and only then', async () => {
    answer('GET', '/api/auth/session', 200, { authenticated: true, userId: 'u-1', email: 'ada@example.com', emailVerified: true, name: 'Ada', roles: [] })
    answer('GET', '/api/orgs/o-1/members', 200, {
      ok: true,
      data: { members: [member('u-1', 'Ada', 'ada@example.com', 'owner'), member('u-2', 'Grace Hopper', 'grace@example.com', 'member', NOW)] },
    })
    const list = await mountSuspended(OrgMembers, { props: { org: org(OWNER), roles: [] }, attachTo: document.body })
    mounted.push(list)
    await vi.waitFor(() => expect(list.find('#member-remove-u-2').exists()).toBe(true))
    const marks = list.findAll('[data-testid="member-deactivated"]')
    expect(marks).toHaveLength(1)
    expect(marks[0]!.text()).toBe('Deactivated by the identity provider')
    expect(marks[0]!.element.closest('li')?.textContent).toContain('grace@example.com')
  })
})
