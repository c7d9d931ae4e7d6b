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
// The table lives in the contract: the gateway's pages apply the same rules.
import { BUILT_IN_PERMISSIONS, ORG_PERMISSIONS, PERMISSION_SHAPE } from '../../contract/org-permissions'

const literalArray = (values: readonly string[]) => `array[${values.map((v) => `'${v}'`).join(', ')}]::text[]`
for (const p of ORG_PERMISSIONS) if (!PERMISSION_SHAPE.test(p)) throw new Error(`not a permission string: ${p}`)

/**
 * The member's permissions in SQL, given the membership's role column and the custom role's
 * permissions column (null for a built-in role). The table's strings are the contract's constants.
 */
export function permissionsSql(role: string, customPermissions: string): RawBuilder<string[]> {
  return sql<string[]>`(case ${sql.ref(role)} when 'owner' then ${sql.raw(literalArray(BUILT_IN_PERMISSIONS.owner))} when 'admin' then ${sql.raw(
    literalArray(BUILT_IN_PERMISSIONS.admin),
  )} when 'member' then ${sql.raw(literalArray(BUILT_IN_PERMISSIONS.member))} else coalesce(${sql.ref(customPermissions)}, '{}'::text[]) end)`
}

