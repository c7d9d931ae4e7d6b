/**
 * The last-owner rule seen from an account rather than an organization: the organizations in which
 * the user is the only owner who can act, counting only owners whose own account is not waiting
 * for its purge (two owners who both delete their accounts would otherwise leave the organization
 * to no one) nor suspended at `now` (organizations/members.ts says why).
 * Deleting the account is refused while this list is not empty (features/account-deletion).
 */
import { sql, type Kysely, type Transaction } from 'kysely'
import type { Database } from '../../db/schema'

export interface SoleOwnedOrganization {
  id: string
  slug: string
  name: string
}

export async function soleOwnedOrganizations(db: Kysely<Database> | Transaction<Database>, userId: number, now: Date): Promise<SoleOwnedOrganization[]> {
  const { rows } = await sql<SoleOwnedOrganization>`
    select o.public_id::text as id, o.slug, o.name
    from memberships m
    join organizations o on o.id = m.org_id
    where m.user_id = ${userId} and m.role = 'owner'
      and not exists (
        select 1 from memberships other
        join users u on u.id = other.user_id
        where other.org_id = m.org_id and other.role = 'owner' and other.user_id <> m.user_id and u.deletion_due_at is null and other.deprovisioned_at is null
          and (u.banned_until is null or u.banned_until <= ${now})
      )
    order by o.name, o.id`.execute(db)
  return rows
}
