/**
 * The permissions the IAM's organization routes check (docs/organizations.md, Permissions), here so
 * that the gateway's role editor offers exactly the strings the IAM knows, from the same list.
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
