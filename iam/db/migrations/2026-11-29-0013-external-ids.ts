/**
 * External ids (features/users/import-users.ts, docs/import.md): users.external_id, the account's
 * id in the system it was imported from (a Firebase uid, an Auth0 `user_id`, a Keycloak user id, a
 * row's primary key), so that system's references (its orders, its tickets) can still be joined to
 * the account after the move. Null for every account made here.
 *
 * Unique where set: one external id names one account. A second account claiming the id is a
 * refused line at import; the index is what holds it when two imports run at once. Partial, so it
 * holds only the imported accounts that carry one. Compared exactly (no case folding): the source
 * systems' ids are case-sensitive (Firebase uids are).
 *
 * The check repeats the import's length rule (1 to 255 characters), so no other writer stores an
 * empty or unbounded one.
 */
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('users')
    .addColumn('external_id', 'text', (c) => c.check(sql`char_length(external_id) between 1 and 255`))
    .execute()
  await db.schema.createIndex('users_external_id_key').on('users').column('external_id').unique().where('external_id', 'is not', null).execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('users_external_id_key').execute()
  await db.schema.alterTable('users').dropColumn('external_id').execute()
}
