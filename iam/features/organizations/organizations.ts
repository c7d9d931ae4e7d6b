/**
 * Organizations: create one (its creator becomes its owner), list the user's own, read one (its
 * members only), delete one (its owners only; the route asks for a recent sign-in).
 */
import { sql, type Kysely } from 'kysely'
import type { z } from 'zod'
import type { orgListEntry } from '../../contract/organizations'
import type { Database } from '../../db/schema'
import type { Actor } from '../security-events/repository'
import { recordUserAction } from '../security-events/repository'
import { deleteOrganizationEndpoints } from '../webhooks/endpoints-repo'
import { actorSql, eventDetails, FORBIDDEN, holds, lockActor, NOT_FOUND, readActor, viewOf, type Forbidden, type NotFound, type OrgView } from './actor'

export type CreateOrgResult = { ok: true; org: OrgView } | { ok: false; code: 'slug_taken' }

/** Creates an organization with `userId` as its owner, in one transaction with its security event. */
export async function createOrganization(
  db: Kysely<Database>,
  input: { userId: number; name: string; slug: string; actor: Actor; now: number },
): Promise<CreateOrgResult> {
  return db.transaction().execute(async (trx) => {
    const at = new Date(input.now)
    const org = await trx
      .insertInto('organizations')
      .values({ name: input.name, slug: input.slug, created_at: at })
      .onConflict((oc) => oc.column('slug').doNothing())
      .returning(['id', sql<string>`public_id::text`.as('publicId'), 'slug', 'name', 'created_at'])
      .executeTakeFirst()
    if (!org) return { ok: false, code: 'slug_taken' } as const
    await trx.insertInto('memberships').values({ org_id: org.id, user_id: input.userId, role: 'owner', created_at: at }).execute()
    const view = await readActor(trx, org.publicId, input.userId)
    await recordUserAction(trx, 'org_created', { userId: input.userId, actor: input.actor, details: eventDetails(view!), at })
    return { ok: true, org: viewOf(view!) } as const
  })
}

/** One of the organizations the user is a member of, with their role in it. */
export type OrgSummary = z.infer<typeof orgListEntry>

/** The organizations the user is a member of, oldest membership first. */
export async function listMyOrganizations(db: Kysely<Database>, userId: number): Promise<OrgSummary[]> {
  const { rows } = await sql<OrgSummary>`select o.public_id::text as id, o.slug, o.name, m.role, coalesce(r.name, m.role) as "roleName"
    from memberships m
    join organizations o on o.id = m.org_id
    left join organization_roles r on r.org_id = o.id and r.id::text = m.role
    where m.user_id = ${userId} and m.deprovisioned_at is null
    order by m.created_at, o.id`.execute(db)
  return rows
}

/** One organization, as its member sees it (organization:read). */
export async function getOrganization(db: Kysely<Database>, orgId: string, userId: number): Promise<{ ok: true; org: OrgView } | NotFound | Forbidden> {
  const actor = await readActor(db, orgId, userId)
  if (!actor) return NOT_FOUND
  if (!holds(actor, 'organization:read')) return FORBIDDEN
  return { ok: true, org: viewOf(actor) }
}

/**
 * Deletes the organization (organization:delete: owners only) with its memberships, roles and
 * invitations; the sessions acting for it lose their active organization (the foreign key).
 */
export async function deleteOrganization(
  db: Kysely<Database>,
  input: { orgId: string; userId: number; actor: Actor; now: number },
): Promise<{ ok: true } | NotFound | Forbidden> {
  return db.transaction().execute(async (trx) => {
    const actor = await lockActor(trx, input.orgId, input.userId)
    if (!actor) return NOT_FOUND
    if (!holds(actor, 'organization:delete')) return FORBIDDEN
    // its endpoints' deliveries have no key to cascade from: they go first, by the endpoints
    await deleteOrganizationEndpoints(trx, actor.id)
    // the permission is checked by the statement that deletes as well, on the actor it joins
    const deleted = await sql<{ id: number }>`with a as (${actorSql(input.orgId, input.userId)})
      delete from organizations o using a where o.id = a."orgId" and 'organization:delete' = any(a.permissions) returning o.id`.execute(trx)
    if (deleted.rows.length === 0) return FORBIDDEN
    await recordUserAction(trx, 'org_deleted', { userId: input.userId, actor: input.actor, details: eventDetails(actor, { slug: actor.slug }), at: new Date(input.now) })
    return { ok: true } as const
  })
}
