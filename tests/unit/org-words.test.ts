import { describe, expect, it } from 'vitest'
import { BUILT_IN_PERMISSIONS, CUSTOM_ROLE_PERMISSIONS, ORG_PERMISSIONS, PERMISSION_SHAPE, SLUG_SHAPE } from '../../iam/contract/org-permissions'
import { grantableRoles, PERMISSION_KEYS, slugFromName } from '../../composables/org-words'

describe('the slug suggested from an organization name', () => {
  it.each([
    ['Acme Rockets & Co', 'acme-rockets-co'],
    ['  Café Zürich  ', 'cafe-zurich'],
    ['ÅB', 'ab-org'],
    ['---', ''],
    ['x'.repeat(39) + ' y', 'x'.repeat(39)],
  ])('%j suggests %j', (name, slug) => {
    expect(slugFromName(name)).toBe(slug)
  })

  it('suggests only slugs the IAM accepts (or nothing)', () => {
    for (const name of ['A', 'Ab', 'a b c', '日本語', 'Über-Straße 12', `${'long '.repeat(20)}`, 'a--b', '-a-']) {
      const slug = slugFromName(name)
      expect(slug === '' || SLUG_SHAPE.test(slug), `${name} -> ${slug}`).toBe(true)
    }
  })
})

describe('the permissions the role form offers', () => {
  it('has words for every permission the IAM checks, and offers none of the owner-only ones', () => {
    expect(Object.keys(PERMISSION_KEYS).sort()).toEqual([...ORG_PERMISSIONS].sort())
    expect(CUSTOM_ROLE_PERMISSIONS).not.toContain('organization:delete')
    expect(CUSTOM_ROLE_PERMISSIONS).not.toContain('owners:manage')
    for (const p of CUSTOM_ROLE_PERMISSIONS) expect(PERMISSION_SHAPE.test(p)).toBe(true)
  })
})

describe('the roles a member is offered to hand out', () => {
  const custom = [
    { id: 'r-billing', name: 'Billing', permissions: ['billing:read'] },
    { id: 'r-inviter', name: 'Inviter', permissions: ['invitations:manage', 'invitations:read'] },
  ]
  const values = (role: string, permissions: readonly string[]) => grantableRoles({ role, permissions }, custom).map((o) => o.value)

  it('offers an owner every role, the owner role included', () => {
    expect(values('owner', BUILT_IN_PERMISSIONS.owner)).toEqual(['owner', 'admin', 'member', 'r-billing', 'r-inviter'])
  })
  it('offers an admin everything but the owner role', () => {
    expect(values('admin', BUILT_IN_PERMISSIONS.admin)).toEqual(['admin', 'member', 'r-billing', 'r-inviter'])
  })
  it('offers a custom role only roles whose every permission it holds itself (an app\'s own included), never the owner role', () => {
    expect(values('Inviter', ['invitations:manage', 'invitations:read'])).toEqual(['r-inviter'])
    expect(values('Lead', ['invitations:manage', 'organization:read', 'members:read', 'roles:read', 'billing:read'])).toEqual(['member', 'r-billing'])
    expect(values('Deputy', BUILT_IN_PERMISSIONS.admin)).toEqual(['admin', 'member', 'r-inviter'])
  })
})
