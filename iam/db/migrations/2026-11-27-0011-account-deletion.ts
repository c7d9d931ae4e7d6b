/**
 * Account deletion (features/account-deletion).
 *
 * users.deletion_due_at: set when the owner confirmed the deletion of the account from the mailed
 * link. From then on the account is disabled (every sign-in path reads it as it reads no account,
 * docs/accounts.md), and at this moment the purge erases it; the undo link, valid until then,
 * clears it. Null for every live account. The partial index keeps the purge's scan to the accounts
 * actually waiting (a handful among all of them).
 *
 * security_events.user_id loses its foreign key: the purge erases the user row and everything it
 * owns, and the account's security events stay, stripped to their type, time and the user's id
 * (their address, device and details are cleared by the purge itself). With the key in place the
 * delete would set that id to null, and the history could no longer be told apart per account.
 */
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('users').addColumn('deletion_due_at', 'timestamptz').execute()
  await db.schema.createIndex('users_deletion_due_idx').on('users').column('deletion_due_at').where('deletion_due_at', 'is not', null).execute()
  await sql`alter table security_events drop constraint if exists security_events_user_id_fkey`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`update security_events e set user_id = null where user_id is not null and not exists (select 1 from users u where u.id = e.user_id)`.execute(db)
  await sql`alter table security_events add constraint security_events_user_id_fkey foreign key (user_id) references users(id) on delete set null`.execute(db)
  await db.schema.dropIndex('users_deletion_due_idx').execute()
  await db.schema.alterTable('users').dropColumn('deletion_due_at').execute()
}
