/**
 * Ending impersonated sessions inside the caller's transaction, each end recorded on both
 * accounts (`impersonation_ended`): the administrator's end-all (features/admin/impersonation.ts)
 * and the revocation of the administrator role (features/admin/platform-admins.ts), after which no
 * session that administrator opened may live on.
 */
import { sql, type Kysely, type Transaction } from 'kysely'
import type { Database } from '../../db/schema'
import { recordSecurityEvent } from '../security-events/repository'

type Db = Kysely<Database> | Transaction<Database>

/** The `by` of the events an administrator's action records (features/admin/users.ts BY_ADMIN). */
const BY_ADMIN = 'admin'

/** The revocation reason of an impersonated session ended on purpose. */
export const IMPERSONATION_ENDED = 'impersonation_ended'

/** An impersonated family as the end reads it. */
export interface ImpersonatedFamily {
  id: string
  user_id: number
  impersonated_by: string
}

/** Where an end came from: the request's device and address, none for the admin CLI. */
export interface EndActor {
  visitorRowId: number | null
  ipAddress: string | null
}

/** Records the end of each of `families` on the account and on its administrator's (who also reads the account's address). */
export async function recordImpersonationEnds(trx: Db, families: readonly ImpersonatedFamily[], actor: EndActor, reason: string, at: Date): Promise<void> {
  if (families.length === 0) return
  const admins = await trx
    .selectFrom('users')
    .select(['id', sql<string>`public_id::text`.as('public_id')])
    .where('public_id', 'in', [...new Set(families.map((f) => f.impersonated_by))])
    .execute()
  const targets = await trx
    .selectFrom('users')
    .select(['id', sql<string>`public_id::text`.as('public_id'), 'email'])
    .where('id', 'in', [...new Set(families.map((f) => f.user_id))])
    .execute()
  const event = (userId: number, details: Record<string, unknown>) =>
    recordSecurityEvent(trx, { type: 'impersonation_ended', userId, visitorRowId: actor.visitorRowId, ipAddress: actor.ipAddress, details, at })
  for (const family of families) {
    const admin = admins.find((a) => a.public_id.toLowerCase() === family.impersonated_by.toLowerCase())
    const target = targets.find((t) => t.id === family.user_id)
    const details = { by: BY_ADMIN, adminId: family.impersonated_by, userId: target?.public_id ?? null, sessionId: family.id, reason }
    await event(family.user_id, details)
    // the administrator's own event names the account (the account's own names only the administrator)
    if (admin) await event(admin.id, { ...details, email: target?.email ?? null })
  }
}

/**
 * Inside `trx`: ends every live session the administrator (serial id) opened on someone's behalf,
 * the family rows first and then their tokens (the order every writer of a family keeps), and
 * records each end. The ended family ids.
 */
export async function endImpersonationsOpenedBy(trx: Transaction<Database>, adminUserId: number, actor: EndActor, reason: string, at: Date): Promise<string[]> {
  const families = await trx
    .updateTable('session_families')
    .set({ revoked_at: at, revoked_reason: IMPERSONATION_ENDED, refresh_expires_at: null })
    .where('impersonated_by', '=', (eb) => eb.selectFrom('users').select('public_id').where('id', '=', adminUserId))
    .where('revoked_at', 'is', null)
    .returning(['id', 'user_id', 'impersonated_by'])
    .execute()
  if (families.length === 0) return []
  await trx
    .updateTable('refresh_tokens')
    .set({ status: 'revoked' })
    .where('family_id', 'in', families.map((f) => f.id))
    .where('status', '=', 'active')
    .execute()
  await recordImpersonationEnds(trx, families as ImpersonatedFamily[], actor, reason, at)
  return families.map((f) => f.id)
}
