/**
 * Impersonation (features/admin/impersonation.ts, docs/administration.md): a platform
 * administrator opens a session of another account, marked as such on its family.
 *
 * session_families.impersonated_by: the administrator's public id (users.public_id), null for
 * every ordinary session. Full authentication reads it in its one statement (no join: the public id
 * is what access tokens carry as `act.sub`, RFC 8693 section 4.1), so an impersonated session is
 * known on every request without a statement of its own. Deleting the administrator's account
 * deletes the sessions it opened.
 *
 * session_families.impersonation_ends_at: the hard end of an impersonated session. Every refresh
 * token of the family expires at or before it (the rotation statement takes the least of the
 * lifetimes), so nothing refreshes past it.
 *
 * The partial index serves the administrator's "end my impersonations" (POST
 * /admin/impersonation/end); a rotation changes neither column, so it stays a heap-only update.
 */
import type { Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('session_families')
    .addColumn('impersonated_by', 'uuid', (c) => c.references('users.public_id').onDelete('cascade'))
    .addColumn('impersonation_ends_at', 'timestamptz')
    .execute()
  await db.schema
    .createIndex('session_families_impersonated_by_idx')
    .on('session_families')
    .column('impersonated_by')
    .where('impersonated_by', 'is not', null)
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('session_families_impersonated_by_idx').execute()
  await db.schema.alterTable('session_families').dropColumn('impersonation_ends_at').dropColumn('impersonated_by').execute()
}
