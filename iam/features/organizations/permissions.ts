/**
 * What a member of an organization may do: permission strings `resource:action`. The built-in
 * roles have a fixed table; a custom role holds its own strings (the IAM's own below, and any an
 * app defines for itself, which the IAM only carries in the access token's `org` claim).
 *
 * The table is rendered once into SQL (`PERMISSIONS_SQL`), so the statement that reads or writes
 * for a member computes the member's permissions itself: no route decides from a value read by an
 * earlier statement.
 */
import { sql, type RawBuilder } from 'kysely'
// The list lives in the contract: the gateway's role editor offers the same strings.
import { ORG_PERMISSIONS, OWNER_ONLY, type OrgPermission } from '../../contract/org-permissions'

export { ORG_PERMISSIONS, OWNER_ONLY, type OrgPermission }

export const BUILT_IN_ROLES = ['owner', 'admin', 'member'] as const
export type BuiltInRole = (typeof BUILT_IN_ROLES)[number]

export const BUILT_IN_PERMISSIONS: Readonly<Record<BuiltInRole, readonly OrgPermission[]>> = {
  owner: ORG_PERMISSIONS,
  admin: ORG_PERMISSIONS.filter((p) => !OWNER_ONLY.includes(p)),
  member: ['organization:read', 'members:read', 'roles:read'],
}

/** A permission string: `resource:action`, lower case. */
export const PERMISSION_SHAPE = /^[a-z][a-z0-9_-]{0,31}:[a-z][a-z0-9_-]{0,31}$/

export const isBuiltInRole = (role: string): role is BuiltInRole => (BUILT_IN_ROLES as readonly string[]).includes(role)

const literalArray = (values: readonly string[]) => `array[${values.map((v) => `'${v}'`).join(', ')}]::text[]`
for (const p of ORG_PERMISSIONS) if (!PERMISSION_SHAPE.test(p)) throw new Error(`not a permission string: ${p}`)

/**
 * The member's permissions in SQL, given the membership's role column and the custom role's
 * permissions column (null for a built-in role). The table's strings are constants of this file.
 */
export function permissionsSql(role: string, customPermissions: string): RawBuilder<string[]> {
  return sql<string[]>`(case ${sql.ref(role)} when 'owner' then ${sql.raw(literalArray(BUILT_IN_PERMISSIONS.owner))} when 'admin' then ${sql.raw(
    literalArray(BUILT_IN_PERMISSIONS.admin),
  )} when 'member' then ${sql.raw(literalArray(BUILT_IN_PERMISSIONS.member))} else coalesce(${sql.ref(customPermissions)}, '{}'::text[]) end)`
}

/**
 * Whether a member with `actor` may hand out a role whose permissions are `granted` (assign it,
 * invite with it, create a custom role with them): an owner any; an admin any but the owner's own;
 * anyone else only what they hold themselves, so no member can give more than they have.
 */
export function mayGrant(actor: { role: string; permissions: readonly string[] }, granted: readonly string[], grantsOwner: boolean): boolean {
  if (grantsOwner) return actor.permissions.includes('owners:manage')
  if (actor.role === 'owner') return true
  if (actor.role === 'admin') return granted.every((p) => !OWNER_ONLY.includes(p as OrgPermission))
  return granted.every((p) => actor.permissions.includes(p))
}
