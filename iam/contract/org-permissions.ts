/**
 * The organization rules both apps apply (docs/organizations.md): the permissions the IAM's
 * organization routes check, the built-in roles' table, the slug and permission string shapes and
 * who may hand out which role. The IAM decides with them; the gateway's pages use the same
 * functions, so they never offer what the IAM would refuse.
 */

/** The permissions the IAM's organization routes check. */
export const ORG_PERMISSIONS = [
  'organization:read',
  'organization:delete',
  'members:read',
  'members:manage',
  'owners:manage',
  'invitations:read',
  'invitations:manage',
  'roles:read',
  'roles:manage',
] as const
export type OrgPermission = (typeof ORG_PERMISSIONS)[number]

/** Only an owner holds these: no custom role may carry them. */
export const OWNER_ONLY: readonly OrgPermission[] = ['organization:delete', 'owners:manage']

export const BUILT_IN_ROLES = ['owner', 'admin', 'member'] as const
export type BuiltInRole = (typeof BUILT_IN_ROLES)[number]

export const BUILT_IN_PERMISSIONS: Readonly<Record<BuiltInRole, readonly OrgPermission[]>> = {
  owner: ORG_PERMISSIONS,
  admin: ORG_PERMISSIONS.filter((p) => !OWNER_ONLY.includes(p)),
  member: ['organization:read', 'members:read', 'roles:read'],
}

export const isBuiltInRole = (role: string): role is BuiltInRole => (BUILT_IN_ROLES as readonly string[]).includes(role)

/** The permissions a custom role may hold among the IAM's own: every one but the owner-only ones. */
export const CUSTOM_ROLE_PERMISSIONS: readonly OrgPermission[] = BUILT_IN_PERMISSIONS.admin

/** A permission string: `resource:action`, lower case (an app may define its own). */
export const PERMISSION_SHAPE = /^[a-z][a-z0-9_-]{0,31}:[a-z][a-z0-9_-]{0,31}$/

/** An organization's slug: 3 to 40 lower-case letters, digits and inner hyphens. */
export const SLUG_SHAPE = /^[a-z0-9][a-z0-9-]{1,38}[a-z0-9]$/

/**
 * Whether a member with `actor` may hand out a role whose permissions are `granted` (assign it,
 * invite with it, create a custom role with them): the owner role only with `owners:manage`; an
 * owner any other; an admin any but the owner-only permissions; anyone else only what they hold
 * themselves, so no member can give more than they have.
 */
export function mayGrant(actor: { role: string; permissions: readonly string[] }, granted: readonly string[], grantsOwner: boolean): boolean {
  if (grantsOwner) return actor.permissions.includes('owners:manage')
  if (actor.role === 'owner') return true
  if (actor.role === 'admin') return granted.every((p) => !OWNER_ONLY.includes(p as OrgPermission))
  return granted.every((p) => actor.permissions.includes(p))
}
