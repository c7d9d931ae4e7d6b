/**
 * The `org` claim of a session's access tokens, read only where tokens are issued: as a scalar
 * subquery of the statement that loads a family's claims (sessions/session-service.ts
 * familyClaims), or on its own by a refresh of a session that has an active organization
 * (sessions/rotate-service.ts). It joins the membership, so a user who left or was removed gets no
 * claim even before the column is cleared.
 */
import { sql, type Kysely, type Transaction } from 'kysely'
import type { Database } from '../../db/schema'
import type { OrgClaim } from '../tokens/access-token'
import { permissionsSql } from './permissions'

/** The claim as a scalar subquery on a session_families row aliased `f` (for the statements that issue tokens). */
export const orgClaimSql = sql<OrgClaim | null>`(select json_build_object('id', o.public_id::text, 'slug', o.slug, 'role', coalesce(r.name, m.role),
    'permissions', ${permissionsSql('m.role', 'r.permissions')})
  from organizations o
  join memberships m on m.org_id = o.id and m.user_id = f.user_id and m.deprovisioned_at is null
  left join organization_roles r on r.org_id = o.id and r.id::text = m.role
  where o.id = f.active_org_id)`

/** The org claim of a session; null when it acts for none (or is no longer a member). */
export async function orgClaimOf(db: Kysely<Database> | Transaction<Database>, familyId: string): Promise<OrgClaim | null> {
  const { rows } = await sql<{ org: OrgClaim | string | null }>`select ${orgClaimSql} as org from session_families f where f.id = ${familyId}`.execute(db)
  const org = rows[0]?.org ?? null
  return typeof org === 'string' ? (JSON.parse(org) as OrgClaim) : org
}

/** json from either driver: parsed already (pg) or text */
export const parseOrgClaim = (org: OrgClaim | string | null | undefined): OrgClaim | null => (typeof org === 'string' ? (JSON.parse(org) as OrgClaim) : (org ?? null))

/**
 * Every organization of a user as `org` claims, oldest membership first: the `orgs` claim of the
 * OpenID Provider's `organization` scope (features/oidc/accounts.ts). One statement.
 */
export async function orgClaimsOfUser(db: Kysely<Database> | Transaction<Database>, userId: number): Promise<OrgClaim[]> {
  const { rows } = await sql<{ org: OrgClaim | string }>`select json_build_object('id', o.public_id::text, 'slug', o.slug, 'role', coalesce(r.name, m.role),
      'permissions', ${permissionsSql('m.role', 'r.permissions')}) as org
    from memberships m
    join organizations o on o.id = m.org_id
    left join organization_roles r on r.org_id = o.id and r.id::text = m.role
    where m.user_id = ${userId} and m.deprovisioned_at is null
    order by m.created_at, o.id`.execute(db)
  return rows.map((row) => parseOrgClaim(row.org)!)
}
