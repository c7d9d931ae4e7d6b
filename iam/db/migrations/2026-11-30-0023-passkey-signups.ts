/**
 * Sign-up with a passkey and no password (features/users/passkey-signup.ts): one row per address
 * that asked, holding the mailed code (HMAC only) until it is typed, then the WebAuthn ceremony it
 * opened (SHA-256 of the ceremony id and of the challenge, the user handle, the asking device).
 * One row per address: a new request replaces the earlier one. Both steps take the row with a
 * single conditional statement, so a code or a ceremony is used once whatever the concurrency.
 */
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('passkey_signups')
    // the normalized address (lower case): what the code proves
    .addColumn('email', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text')
    .addColumn('code_hmac', 'text')
    .addColumn('code_expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('code_attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('ceremony_hash', 'text', (c) => c.unique())
    .addColumn('challenge_hash', 'text')
    .addColumn('user_handle', 'text')
    .addColumn('visitor_id', 'integer', (c) => c.references('visitors.id').onDelete('cascade'))
    .addColumn('ceremony_expires_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute()
  await db.schema.createIndex('passkey_signups_created_idx').on('passkey_signups').column('created_at').execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('passkey_signups').execute()
}
