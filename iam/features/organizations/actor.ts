/**
 * The acting member of an organization, as every organization statement reads it: the
 * organization named by its public id JOINED with the membership of the acting user, so an
 * organization the user is no member of is not found, exactly like one that does not exist. A
 * membership its organization's identity provider deactivated (SCIM, `deprovisioned_at`,
 * features/enterprise/scim-deprovision.ts) counts as none.
 *
 * Writes that depend on the other members (the last owner rule, role changes, removals) first lock
 * the organization row (`lockActor`): every such write takes the same lock, so two owners demoting
 * each other at the same moment run one after the other, and the second one's statements (each with
 * a fresh snapshot, PostgreSQL's READ COMMITTED) see the first one's outcome.
 */
import { sql, type Kysely, type Transaction } from 'kysely'
import type { z } from 'zod'
import type { orgView } from '../../contract/organizations'
import type { Database } from '../../db/schema'
import type { OrgPermission } from '../../contract/org-permissions'
import { permissionsSql } from './permissions'

export type Db = Kysely<Database> | Transaction<Database>

export interface OrgActor {
  /** organizations.id: never leaves the IAM */
  orgId: number
  /** the public id */
  id: string
  slug: string
  name: string
  createdAt: Date
  /** 'owner' | 'admin' | 'member' or a custom role's id */
  role: string
  /** the built-in role, or the custom role's name */
  roleName: string
  permissions: string[]
}

/** The actor row as a subquery (for a CTE): the organization joined with the user's membership. */
export function actorSql(orgPublicId: string, userId: number) {
  return sql`select o.id as "orgId", o.public_id::text as id, o.slug, o.name, o.created_at as "createdAt", m.role,
    coalesce(r.name, m.role) as "roleName", ${permissionsSql('m.role', 'r.permissions')} as permissions
    from organizations o
    join memberships m on m.org_id = o.id and m.user_id = ${userId} and m.deprovisioned_at is null
    left join organization_roles r on r.org_id = o.id and r.id::text = m.role
    where o.public_id = ${orgPublicId}::uuid`
}

/** The acting member, or null when the user is no member of an organization of that id (or there is none). */
export async function readActor(db: Db, orgPublicId: string, userId: number): Promise<OrgActor | null> {
  const { rows } = await sql<OrgActor>`${actorSql(orgPublicId, userId)}`.execute(db)
  const row = rows[0]
  return row ? { ...row, createdAt: new Date(row.createdAt) } : null
}

/** Inside `trx`: locks the organization (only when the user is a member of it), then reads the actor afresh. */
export async function lockActor(trx: Transaction<Database>, orgPublicId: string, userId: number): Promise<OrgActor | null> {
  const locked = await sql<{ id: number }>`select o.id from organizations o
    where o.public_id = ${orgPublicId}::uuid and exists (select 1 from memberships m where m.org_id = o.id and m.user_id = ${userId} and m.deprovisioned_at is null)
    for update`.execute(trx)
  if (locked.rows.length === 0) return null
  return readActor(trx, orgPublicId, userId)
}

export const holds = (actor: { permissions: readonly string[] }, permission: OrgPermission) => actor.permissions.includes(permission)

/** The organization as the routes show it to a member. */
export type OrgView = z.infer<typeof orgView>

export const viewOf = (actor: OrgActor): OrgView => ({
  id: actor.id,
  slug: actor.slug,
  name: actor.name,
  createdAt: new Date(actor.createdAt).toISOString(),
  role: actor.role,
  roleName: actor.roleName,
  permissions: actor.permissions,
})

/** What the organization's security events carry. */
export const eventDetails = (actor: Pick<OrgActor, 'id' | 'name'>, more: Record<string, unknown> = {}) => ({ orgId: actor.id, orgName: actor.name, ...more })

/** Failures every organization route shares: not a member (or no such organization), and not allowed. */
export type NotFound = { ok: false; code: 'not_found' }
export type Forbidden = { ok: false; code: 'forbidden' }
export const NOT_FOUND: NotFound = { ok: false, code: 'not_found' }
export const FORBIDDEN: Forbidden = { ok: false, code: 'forbidden' }
