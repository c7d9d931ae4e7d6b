/**
 * The members of an organization: list them, change a member's role, remove a member, leave.
 *
 * Changing a role or removing a member needs members:manage, and the power to hand out both the
 * member's current role and the new one (`mayTouch`, permissions.ts mayGrant).
 *
 * The last owner rule: an organization always keeps an owner. A demotion, removal or departure of
 * an owner is decided inside the transaction that writes it, after the organization row is locked
 * (actor.ts lockActor), so of two owners demoting each other at once the second finds itself no
 * longer an owner, and the count of owners it reads includes the first one's change.
 */
import { sql, type Kysely, type Transaction } from 'kysely'
import type { z } from 'zod'
import type { orgMemberView } from '../../contract/organizations'
import type { Database } from '../../db/schema'
import type { Actor } from '../security-events/repository'
import { recordUserAction } from '../security-events/repository'
import { actorSql, eventDetails, FORBIDDEN, holds, lockActor, NOT_FOUND, type Forbidden, type NotFound, type OrgActor } from './actor'
import { BUILT_IN_PERMISSIONS, isBuiltInRole, mayGrant } from '../../contract/org-permissions'

/** A member as the routes show it (`userId` is the member's public id, users.public_id). */
export type MemberView = z.infer<typeof orgMemberView>

type MemberRow = Omit<MemberView, 'since' | 'deactivatedAt'> & { since: string | Date; deactivatedAt: string | Date | null }

/**
 * The members (members:read), in one statement with the actor's membership and permission. A
 * member the organization's identity provider deactivated (SCIM, scim-deprovision.ts) is listed
 * with `deactivatedAt`: still a row here, so the page can say why they no longer get in.
 */
export async function listMembers(db: Kysely<Database>, orgId: string, userId: number): Promise<{ ok: true; members: MemberView[] } | NotFound | Forbidden> {
  const { rows } = await sql<{ allowed: boolean; members: MemberRow[] | null }>`with a as (${actorSql(orgId, userId)})
    select 'members:read' = any(a.permissions) as allowed,
      case when 'members:read' = any(a.permissions) then (
        select coalesce(json_agg(json_build_object('userId', u.public_id::text, 'email', u.email, 'name', u.name, 'role', m.role,
          'roleName', coalesce(r.name, m.role), 'since', m.created_at, 'deactivatedAt', m.deprovisioned_at) order by m.created_at, u.id), '[]'::json)
        from memberships m
        join users u on u.id = m.user_id
        left join organization_roles r on r.org_id = m.org_id and r.id::text = m.role
        where m.org_id = a."orgId") end as members
    from a`.execute(db)
  const row = rows[0]
  if (!row) return NOT_FOUND
  if (!row.allowed) return FORBIDDEN
  const members = (typeof row.members === 'string' ? JSON.parse(row.members) : row.members) as MemberRow[]
  return { ok: true, members: members.map((m) => ({ ...m, since: new Date(m.since).toISOString(), deactivatedAt: m.deactivatedAt === null ? null : new Date(m.deactivatedAt).toISOString() })) }
}

/** A role as it is handed out: its permissions, and its name (the built-in role or the custom role's). */
export type ResolvedRole = { role: string; name: string; permissions: string[] }

/** The role `role` of the organization: a built-in one, or one of its custom roles; null otherwise. */
export async function resolveRole(db: Kysely<Database> | Transaction<Database>, orgId: number, role: string): Promise<ResolvedRole | null> {
  if (isBuiltInRole(role)) return { role, name: role, permissions: [...BUILT_IN_PERMISSIONS[role]] }
  const custom = await db
    .selectFrom('organization_roles')
    .select(['name', 'permissions'])
    .where('org_id', '=', orgId)
    .where(sql<string>`id::text`, '=', role)
    .executeTakeFirst()
  return custom ? { role, name: custom.name, permissions: custom.permissions } : null
}

/**
 * The owners who can act that the organization keeps besides `exceptUserId` (the owner being
 * demoted, removed or leaving). An owner whose account's deletion is confirmed counts for nothing,
 * as in sole-owner.ts, or the other owner could leave while it waits for the purge and the purge
 * would leave the organization to no one; nor does a suspended owner (admin-users.ts banAccount):
 * nobody could manage the organization until the suspension ends, or ever for one until lifted;
 * nor does an owner the organization's identity provider deactivated (SCIM, docs/scim.md).
 */
const actingOwnersBesides = async (trx: Transaction<Database>, orgId: number, exceptUserId: number, now: number) =>
  Number(
    (
      await trx
        .selectFrom('memberships as m')
        .innerJoin('users as u', 'u.id', 'm.user_id')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('m.org_id', '=', orgId)
        .where('m.role', '=', 'owner')
        .where('m.user_id', '<>', exceptUserId)
        .where('u.deletion_due_at', 'is', null)
        .where('m.deprovisioned_at', 'is', null)
        .where((eb) => eb.or([eb('u.banned_until', 'is', null), eb('u.banned_until', '<=', new Date(now))]))
        .executeTakeFirstOrThrow()
    ).n,
  )

/** The member named by public id, with their role (inside the locked transaction). */
const findMember = (trx: Transaction<Database>, orgId: number, memberId: string) =>
  trx
    .selectFrom('memberships as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select(['m.user_id as userId', 'm.role as role', 'u.email as email'])
    .where('m.org_id', '=', orgId)
    .where(sql<string>`u.public_id::text`, '=', memberId)
    .executeTakeFirst()

/** The sessions of `userId` acting for the organization stop doing so (they left it, or were removed). */
const clearActiveOrg = (trx: Transaction<Database>, orgId: number, userId: number) =>
  trx.updateTable('session_families').set({ active_org_id: null }).where('user_id', '=', userId).where('active_org_id', '=', orgId).execute()

export type MemberFailure = NotFound | Forbidden | { ok: false; code: 'member_not_found' | 'unknown_role' | 'last_owner' }

/**
 * Gives a member another role (members:manage). Owners only may touch an owner or make one; no
 * one may hand out a role that carries more than they hold (permissions.ts mayGrant); the last
 * owner keeps the role.
 */
export async function changeMemberRole(
  db: Kysely<Database>,
  input: { orgId: string; userId: number; memberId: string; role: string; actor: Actor; now: number },
): Promise<{ ok: true; member: { userId: string; role: string; roleName: string } } | MemberFailure> {
  return db.transaction().execute(async (trx) => {
    const actor = await lockActor(trx, input.orgId, input.userId)
    if (!actor) return NOT_FOUND
    if (!holds(actor, 'members:manage')) return FORBIDDEN
    const target = await findMember(trx, actor.orgId, input.memberId)
    if (!target) return { ok: false, code: 'member_not_found' } as const
    const role = await resolveRole(trx, actor.orgId, input.role)
    if (!role) return { ok: false, code: 'unknown_role' } as const
    if (!(await mayTouch(trx, actor, target.role))) return FORBIDDEN
    if (!mayGrant(actor, role.permissions, role.role === 'owner')) return FORBIDDEN
    if (target.role === 'owner' && role.role !== 'owner' && (await actingOwnersBesides(trx, actor.orgId, target.userId, input.now)) < 1) return { ok: false, code: 'last_owner' } as const
    await trx.updateTable('memberships').set({ role: role.role }).where('org_id', '=', actor.orgId).where('user_id', '=', target.userId).execute()
    await recordUserAction(trx, 'org_member_role_changed', {
      userId: input.userId,
      actor: input.actor,
      details: eventDetails(actor, { member: input.memberId, role: role.name }),
      at: new Date(input.now),
    })
    return { ok: true, member: { userId: input.memberId, role: role.role, roleName: role.name } } as const
  })
}

/**
 * A member's role is changed, or the member removed, only by someone who may hand out the role the
 * member holds (permissions.ts mayGrant): an owner by owners only, an admin by owners and admins, so
 * a custom role that manages members cannot demote or remove those who hold more than it does.
 */
async function mayTouch(trx: Transaction<Database>, actor: OrgActor, targetRole: string): Promise<boolean> {
  const current = await resolveRole(trx, actor.orgId, targetRole)
  return mayGrant(actor, current?.permissions ?? [], targetRole === 'owner')
}

/** Removes a member (members:manage; an owner by owners only; never the last owner). */
export async function removeMember(
  db: Kysely<Database>,
  input: { orgId: string; userId: number; memberId: string; actor: Actor; now: number },
): Promise<{ ok: true } | MemberFailure> {
  return db.transaction().execute(async (trx) => {
    const actor = await lockActor(trx, input.orgId, input.userId)
    if (!actor) return NOT_FOUND
    if (!holds(actor, 'members:manage')) return FORBIDDEN
    const target = await findMember(trx, actor.orgId, input.memberId)
    if (!target) return { ok: false, code: 'member_not_found' } as const
    if (!(await mayTouch(trx, actor, target.role))) return FORBIDDEN
    if (target.role === 'owner' && (await actingOwnersBesides(trx, actor.orgId, target.userId, input.now)) < 1) return { ok: false, code: 'last_owner' } as const
    await trx.deleteFrom('memberships').where('org_id', '=', actor.orgId).where('user_id', '=', target.userId).execute()
    await clearActiveOrg(trx, actor.orgId, target.userId)
    await recordUserAction(trx, 'org_member_removed', { userId: input.userId, actor: input.actor, details: eventDetails(actor, { member: input.memberId }), at: new Date(input.now) })
    return { ok: true } as const
  })
}

/** The user leaves the organization; the last owner cannot (they delete it, or make another owner first). */
export async function leaveOrganization(
  db: Kysely<Database>,
  input: { orgId: string; userId: number; actor: Actor; now: number },
): Promise<{ ok: true } | NotFound | { ok: false; code: 'last_owner' }> {
  return db.transaction().execute(async (trx) => {
    const actor = await lockActor(trx, input.orgId, input.userId)
    if (!actor) return NOT_FOUND
    if (actor.role === 'owner' && (await actingOwnersBesides(trx, actor.orgId, input.userId, input.now)) < 1) return { ok: false, code: 'last_owner' } as const
    await trx.deleteFrom('memberships').where('org_id', '=', actor.orgId).where('user_id', '=', input.userId).execute()
    await clearActiveOrg(trx, actor.orgId, input.userId)
    await recordUserAction(trx, 'org_left', { userId: input.userId, actor: input.actor, details: eventDetails(actor), at: new Date(input.now) })
    return { ok: true } as const
  })
}
