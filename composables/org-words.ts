/**
 * The words and small rules of the organization pages: what each permission allows, a slug
 * suggested from a name, which roles a member may be offered. Pure (the pages and their tests share
 * it). The IAM decides every action; this only keeps the pages from offering what it would refuse.
 */
import type { z } from 'zod'
import { ORG_PERMISSIONS, OWNER_ONLY, type OrgPermission } from '../iam/contract/org-permissions'
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

/** The permissions a custom role may hold among the IAM's own (the owner-only ones never). */
export const CUSTOM_ROLE_PERMISSIONS: readonly OrgPermission[] = ORG_PERMISSIONS.filter((p) => !OWNER_ONLY.includes(p))

/** The IAM's rule for a permission string (iam/contract/organizations.ts): `resource:action`. */
export const PERMISSION_PATTERN = /^[a-z][a-z0-9_-]{0,31}:[a-z][a-z0-9_-]{0,31}$/

/** The words of a permission: the IAM's own in words, an app's own as the string itself. */
export const permissionInWords = (permission: string): string => (PERMISSION_WORDS as Record<string, string>)[permission] ?? permission

/**
 * A slug suggested for `name`: lower-case ASCII letters and digits, other runs as one hyphen, none
 * at either end, at most 40 characters (the IAM's slug rule). Empty when the name has nothing usable.
 */
export function slugFromName(name: string): string {
  const ascii = name.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase()
  const slug = ascii.replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 40).replace(/-+$/, '')
  return slug.length >= 3 || slug.length === 0 ? slug : `${slug}-org`
}

/** The IAM's slug rule (iam/contract/organizations.ts). */
export const SLUG_PATTERN = /^[a-z0-9][a-z0-9-]{1,38}[a-z0-9]$/

export interface RoleOption {
  value: string
  label: string
}

/** The permissions of the built-in `member` role (iam/features/organizations/permissions.ts). */
const MEMBER_PERMISSIONS = ['organization:read', 'members:read', 'roles:read']

/**
 * The roles a member is offered to hand out (assign or invite with), by the IAM's rule
 * (iam/features/organizations/permissions.ts mayGrant): the owner role only with `owners:manage`;
 * an owner anything; an admin anything but the owner role; anyone else only a role whose every
 * permission they hold (the admin role is every permission but the owner-only ones). The IAM still
 * decides; a refusal is shown in words.
 */
export function grantableRoles(viewer: { role: string; permissions: readonly string[] }, custom: ReadonlyArray<{ id: string; name: string; permissions: readonly string[] }>): RoleOption[] {
  const broad = viewer.role === 'owner' || viewer.role === 'admin'
  const mayGive = (granted: readonly string[]) => broad || granted.every((p) => viewer.permissions.includes(p))
  const options: RoleOption[] = []
  if (viewer.permissions.includes('owners:manage')) options.push({ value: 'owner', label: 'Owner' })
  if (mayGive(CUSTOM_ROLE_PERMISSIONS)) options.push({ value: 'admin', label: 'Admin' })
  if (mayGive(MEMBER_PERMISSIONS)) options.push({ value: 'member', label: 'Member' })
  for (const role of custom) if (mayGive(role.permissions)) options.push({ value: role.id, label: role.name })
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
