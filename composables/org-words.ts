/**
 * The words and small rules of the organization pages: the catalogue key of what each permission
 * allows and of each built-in role, a slug suggested from a name, which roles a member may be
 * offered. Pure (the pages and their tests share it); composables/useOrgWords.ts turns the keys into
 * the page's language. The IAM decides every action; this only keeps the pages from offering what it would refuse.
 */
import type { z } from 'zod'
import { BUILT_IN_PERMISSIONS, mayGrant, type OrgPermission } from '../iam/contract/org-permissions'
import type { orgRoleView, orgView } from '../iam/contract/organizations'

/** The catalogue key (i18n/locales) of what each permission the IAM checks allows, as a person reads it. */
export const PERMISSION_KEYS: Readonly<Record<OrgPermission, string>> = {
  'organization:read': 'orgs.permission.organizationRead',
  'organization:delete': 'orgs.permission.organizationDelete',
  'members:read': 'orgs.permission.membersRead',
  'members:manage': 'orgs.permission.membersManage',
  'owners:manage': 'orgs.permission.ownersManage',
  'invitations:read': 'orgs.permission.invitationsRead',
  'invitations:manage': 'orgs.permission.invitationsManage',
  'roles:read': 'orgs.permission.rolesRead',
  'roles:manage': 'orgs.permission.rolesManage',
}

/** The catalogue key of each built-in role's name; a custom role is called by the name its owners gave it. */
export const BUILT_IN_ROLE_KEYS: Readonly<Record<string, string>> = { owner: 'orgs.role.owner', admin: 'orgs.role.admin', member: 'orgs.role.member' }

/**
 * A slug suggested for `name`: lower-case ASCII letters and digits, other runs as one hyphen, none
 * at either end, at most 40 characters (SLUG_SHAPE, iam/contract/org-permissions.ts). Empty when the name has nothing usable.
 */
export function slugFromName(name: string): string {
  const ascii = name.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase()
  const slug = ascii.replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 40).replace(/-+$/, '')
  return slug.length >= 3 || slug.length === 0 ? slug : `${slug}-org`
}

export interface RoleOption {
  /** what the IAM is sent: a built-in role's name or a custom role's id */
  value: string
  /** the role's name: `owner`, `admin`, `member` (in words through BUILT_IN_ROLE_KEYS), or a custom role's own */
  roleName: string
}

/**
 * The roles a member is offered to hand out (assign or invite with): those the IAM's own rule
 * (iam/contract/org-permissions.ts mayGrant) lets them give. The IAM still decides; a refusal is
 * shown in words.
 */
export function grantableRoles(viewer: { role: string; permissions: readonly string[] }, custom: ReadonlyArray<{ id: string; name: string; permissions: readonly string[] }>): RoleOption[] {
  const options: RoleOption[] = []
  const offer = (value: string, roleName: string, permissions: readonly string[], grantsOwner = false) => {
    if (mayGrant(viewer, permissions, grantsOwner)) options.push({ value, roleName })
  }
  offer('owner', 'owner', BUILT_IN_PERMISSIONS.owner, true)
  offer('admin', 'admin', BUILT_IN_PERMISSIONS.admin)
  offer('member', 'member', BUILT_IN_PERMISSIONS.member)
  for (const role of custom) offer(role.id, role.name, role.permissions)
  return options
}

/** An organization as GET /api/orgs/:orgId answers it, with the viewer's role and permissions. */
export type OrgView = z.infer<typeof orgView>

/** A custom role (GET /api/orgs/:orgId/roles). */
export type CustomRole = z.infer<typeof orgRoleView>
