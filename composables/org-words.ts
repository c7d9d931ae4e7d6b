/**
 * The words and small rules of the organization pages: what each permission allows, a slug
 * suggested from a name, which roles a member may be offered. Pure (the pages and their tests share
 * it). The IAM decides every action; this only keeps the pages from offering what it would refuse.
 */
import type { z } from 'zod'
import { BUILT_IN_PERMISSIONS, mayGrant, type OrgPermission } from '../iam/contract/org-permissions'
import type { orgRoleView, orgView } from '../iam/contract/organizations'
import { describeFailure, type BffResult } from './useBff'

/** What each permission the IAM checks allows, as a person reads it. */
export const PERMISSION_WORDS: Readonly<Record<OrgPermission, string>> = {
  'organization:read': 'See the organization',
  'organization:delete': 'Delete the organization',
  'members:read': 'See the members',
  'members:manage': 'Change members’ roles and remove members',
  'owners:manage': 'Make, change and remove owners',
  'invitations:read': 'See invitations',
  'invitations:manage': 'Invite people, resend and revoke invitations',
  'roles:read': 'See custom roles',
  'roles:manage': 'Create and delete custom roles',
}

/** The words of a permission: the IAM's own in words, an app's own as the string itself. */
export const permissionInWords = (permission: string): string => (PERMISSION_WORDS as Record<string, string>)[permission] ?? permission

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
  value: string
  label: string
}

/**
 * The roles a member is offered to hand out (assign or invite with): those the IAM's own rule
 * (iam/contract/org-permissions.ts mayGrant) lets them give. The IAM still decides; a refusal is
 * shown in words.
 */
export function grantableRoles(viewer: { role: string; permissions: readonly string[] }, custom: ReadonlyArray<{ id: string; name: string; permissions: readonly string[] }>): RoleOption[] {
  const options: RoleOption[] = []
  const offer = (value: string, label: string, permissions: readonly string[], grantsOwner = false) => {
    if (mayGrant(viewer, permissions, grantsOwner)) options.push({ value, label })
  }
  offer('owner', 'Owner', BUILT_IN_PERMISSIONS.owner, true)
  offer('admin', 'Admin', BUILT_IN_PERMISSIONS.admin)
  offer('member', 'Member', BUILT_IN_PERMISSIONS.member)
  for (const role of custom) offer(role.id, role.name, role.permissions)
  return options
}

/** "Owner", "Admin", "Member", or a custom role's name. */
export function roleInWords(roleName: string): string {
  return ({ owner: 'Owner', admin: 'Admin', member: 'Member' } as Record<string, string>)[roleName] ?? roleName
}

/** An organization as GET /api/orgs/:orgId answers it, with the viewer's role and permissions. */
export type OrgView = z.infer<typeof orgView>

/** A custom role (GET /api/orgs/:orgId/roles). */
export type CustomRole = z.infer<typeof orgRoleView>

/** The sentence for an organization call the IAM refused: its own words, 403 and 404 in the page's. */
export function orgFailure(result: BffResult): string {
  if (result.status === 403 && result.body.impersonated === true) return 'You are signed in on behalf of this person: organization changes are not allowed. End the impersonation first.'
  if (result.status === 403 && result.body.reauthenticate !== true && result.body.verifyEmail !== true) return 'Your role in this organization does not allow this. Ask an owner or an admin.'
  if (result.body.code === 'org_not_found') return 'This organization no longer exists, or you are no longer a member of it.'
  return describeFailure(result)
}
