/**
 * session_families.reauthenticated_at: the last time the session's holder proved the sign-in
 * again (POST /auth/reauthenticate). Adding or removing a second factor or a passkey and changing
 * the email need a proof within security.reauthenticateWithinMs: the sign-in itself (the family's
 * created_at) or this. Full authentication reads it in its one statement, so the check costs no
 * round trip. Null until the first re-authentication; not indexed (read only by primary key).
 *
 * users.first_verified_at: when an address of the account was first proven (a verification link,
 * a provider's verified address, a reset link). Null means never: whoever set the account up may
 * have signed up with someone else's address, so the first proof that sets a new password removes
 * what was set up before it. Backfilled from email_verified (created_at stands in for the moment).
 */
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('session_families').addColumn('reauthenticated_at', 'timestamptz').execute()
  await db.schema.alterTable('users').addColumn('first_verified_at', 'timestamptz').execute()
  await sql`update users set first_verified_at = created_at where email_verified`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('users').dropColumn('first_verified_at').execute()
  await db.schema.alterTable('session_families').dropColumn('reauthenticated_at').execute()
}
