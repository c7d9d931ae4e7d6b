/**
 * Custom roles of an organization: a name and permission strings `resource:action` (the IAM's own,
 * permissions.ts, and any an app gives meaning to). Listing needs roles:read; creating, editing
 * and deleting roles:manage, and a role never carries more than its creator or editor may hand out
 * (permissions.ts mayGrant) nor what only owners hold. A role still held by a member or by a
 * pending invitation is not deleted.
 */
import { sql, type Kysely } from 'kysely'
import type { z } from 'zod'
import type { orgRoleView } from '../../contract/organizations'
import type { Database } from '../../db/schema'
import { isUniqueViolation } from '../users/users-repo'
import { actorSql, FORBIDDEN, holds, lockActor, NOT_FOUND, readActor, type Forbidden, type NotFound } from './actor'
import { mayGrant, OWNER_ONLY } from '../../contract/org-permissions'

/** A custom role as the routes show it. */
export type RoleView = z.infer<typeof orgRoleView>

type RoleRow = Omit<RoleView, 'createdAt'> & { createdAt: string }

/** The organization's custom roles (roles:read), in one statement with the actor's membership. */
export async function listRoles(db: Kysely<Database>, orgId: string, userId: number): Promise<{ ok: true; roles: RoleView[] } | NotFound | Forbidden> {
  const { rows } = await sql<{ allowed: boolean; roles: RoleRow[] | string | null }>`with a as (${actorSql(orgId, userId)})
    select 'roles:read' = any(a.permissions) as allowed,
      case when 'roles:read' = any(a.permissions) then (
        select coalesce(json_agg(json_build_object('id', r.id::text, 'name', r.name, 'permissions', r.permissions, 'createdAt', r.created_at) order by r.created_at, r.name), '[]'::json)
        from organization_roles r where r.org_id = a."orgId") end as roles
    from a`.execute(db)
  const row = rows[0]
  if (!row) return NOT_FOUND
  if (!row.allowed) return FORBIDDEN
  const roles = (typeof row.roles === 'string' ? JSON.parse(row.roles) : row.roles) as RoleRow[]
  return { ok: true, roles: roles.map((r) => ({ ...r, createdAt: new Date(r.createdAt).toISOString() })) }
}

export type CreateRoleFailure = NotFound | Forbidden | { ok: false; code: 'owner_only_permission' | 'name_taken' }

/** Creates a custom role (roles:manage). */
export async function createRole(
  db: Kysely<Database>,
  input: { orgId: string; userId: number; name: string; permissions: string[]; now: number },
): Promise<{ ok: true; role: RoleView } | CreateRoleFailure> {
  const permissions = [...new Set(input.permissions)].sort()
  if (permissions.some((p) => (OWNER_ONLY as readonly string[]).includes(p))) return { ok: false, code: 'owner_only_permission' }
  return db.transaction().execute(async (trx) => {
    const actor = await readActor(trx, input.orgId, input.userId)
    if (!actor) return NOT_FOUND
    if (!holds(actor, 'roles:manage') || !mayGrant(actor, permissions, false)) return FORBIDDEN
    const row = await trx
      .insertInto('organization_roles')
      // a text[] from a json array: the two drivers (pg, PGlite) bind JavaScript arrays differently
      .values({ org_id: actor.orgId, name: input.name, permissions: sql<string[]>`array(select jsonb_array_elements_text(${JSON.stringify(permissions)}::jsonb))`, created_at: new Date(input.now) })
      .onConflict((oc) => oc.columns(['org_id', 'name']).doNothing())
      .returning([sql<string>`id::text`.as('id'), 'name', 'permissions', 'created_at'])
      .executeTakeFirst()
    if (!row) return { ok: false, code: 'name_taken' } as const
    return { ok: true, role: { id: row.id, name: row.name, permissions: row.permissions, createdAt: new Date(row.created_at).toISOString() } } as const
  })
}

export type UpdateRoleFailure = NotFound | Forbidden | { ok: false; code: 'owner_only_permission' | 'name_taken' | 'role_not_found' }

/**
 * Renames a custom role and replaces its permissions (roles:manage). Editing changes what every
 * holder of the role may do, so the editor must be able to hand out the role as it was (it reaches
 * its holders) and as it becomes. The organization's row is locked first, as for every write that
 * depends on the members (actor.ts lockActor); a create racing for the same name loses to the
 * unique index, and that violation is the same answer as a name found taken.
 */
export async function updateRole(
  db: Kysely<Database>,
  input: { orgId: string; userId: number; roleId: string; name: string; permissions: string[] },
): Promise<{ ok: true; role: RoleView } | UpdateRoleFailure> {
  const permissions = [...new Set(input.permissions)].sort()
  if (permissions.some((p) => (OWNER_ONLY as readonly string[]).includes(p))) return { ok: false, code: 'owner_only_permission' }
  try {
    return await db.transaction().execute(async (trx) => {
      const actor = await lockActor(trx, input.orgId, input.userId)
      if (!actor) return NOT_FOUND
      if (!holds(actor, 'roles:manage')) return FORBIDDEN
      const current = await trx.selectFrom('organization_roles').select('permissions').where('org_id', '=', actor.orgId).where('id', '=', input.roleId).executeTakeFirst()
      if (!current) return { ok: false, code: 'role_not_found' } as const
      if (!mayGrant(actor, current.permissions, false) || !mayGrant(actor, permissions, false)) return FORBIDDEN
      const row = await trx
        .updateTable('organization_roles')
        // a text[] from a json array, as createRole writes it
        .set({ name: input.name, permissions: sql<string[]>`array(select jsonb_array_elements_text(${JSON.stringify(permissions)}::jsonb))` })
        .where('org_id', '=', actor.orgId)
        .where('id', '=', input.roleId)
        .returning([sql<string>`id::text`.as('id'), 'name', 'permissions', 'created_at'])
        .executeTakeFirstOrThrow()
      return { ok: true, role: { id: row.id, name: row.name, permissions: row.permissions, createdAt: new Date(row.created_at).toISOString() } } as const
    })
  } catch (error) {
    if (isUniqueViolation(error)) return { ok: false, code: 'name_taken' }
    throw error
  }
}

export type DeleteRoleFailure = NotFound | Forbidden | { ok: false; code: 'role_not_found' | 'role_in_use' }

/**
 * Deletes a custom role (roles:manage) in one statement that joins the actor, checks the
 * permission and that no member and no pending invitation holds the role.
 */
export async function deleteRole(db: Kysely<Database>, input: { orgId: string; userId: number; roleId: string; now: number }): Promise<{ ok: true } | DeleteRoleFailure> {
  const at = new Date(input.now).toISOString()
  const { rows } = await sql<{ member: boolean; allowed: boolean; found: boolean; done: boolean }>`with a as (${actorSql(input.orgId, input.userId)}),
    target as (select r.id from organization_roles r join a on r.org_id = a."orgId" where r.id = ${input.roleId}::uuid),
    d as (
      delete from organization_roles r using a
      where r.org_id = a."orgId" and r.id = ${input.roleId}::uuid and 'roles:manage' = any(a.permissions)
        and not exists (select 1 from memberships m where m.org_id = r.org_id and m.role = r.id::text)
        and not exists (select 1 from invitations i where i.org_id = r.org_id and i.role = r.id::text
          and i.accepted_at is null and i.revoked_at is null and i.expires_at > ${at}::timestamptz)
      returning r.id)
    select exists (select 1 from a) as member, coalesce((select 'roles:manage' = any(a.permissions) from a), false) as allowed,
      exists (select 1 from target) as found, exists (select 1 from d) as done`.execute(db)
  const row = rows[0]!
  if (!row.member) return NOT_FOUND
  if (!row.allowed) return FORBIDDEN
  if (!row.found) return { ok: false, code: 'role_not_found' }
  return row.done ? { ok: true } : { ok: false, code: 'role_in_use' }
}
