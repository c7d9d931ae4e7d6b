/**
 * Second factors: a TOTP secret per account (pending until confirmed), its
 * recovery codes, and the sign-in challenges that stand between a right password and tokens.
 */
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  // One row per account: enabled_at null = a pending setup. The secret is AES-256-GCM ciphertext
  // with the id of the key that sealed it; last_step is the last RFC 6238 time step accepted, so
  // a code is taken once (a conditional UPDATE on it is the single winner).
  await db.schema
    .createTable('totp_factors')
    .addColumn('user_id', 'integer', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('secret_sealed', 'text', (c) => c.notNull())
    .addColumn('last_step', 'integer', (c) => c.notNull().defaultTo(-1))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('enabled_at', 'timestamptz')
    .execute()

  // Only the SHA-256 of each code is stored; used_at set once (single use).
  await db.schema
    .createTable('recovery_codes')
    .addColumn('id', 'integer', (c) => c.primaryKey().generatedAlwaysAsIdentity())
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('code_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('used_at', 'timestamptz')
    .addUniqueConstraint('recovery_codes_user_hash_key', ['user_id', 'code_hash'])
    .execute()

  // The step between a right password and tokens: bound to the device it was issued to, counted
  // attempts, single use. Only the SHA-256 of the challenge is stored.
  await db.schema
    .createTable('second_factor_challenges')
    .addColumn('challenge_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('visitor_id', 'integer', (c) => c.notNull().references('visitors.id').onDelete('cascade'))
    .addColumn('remember', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('used_at', 'timestamptz')
    .execute()
  await db.schema.createIndex('second_factor_challenges_expires_idx').on('second_factor_challenges').column('expires_at').execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('second_factor_challenges').execute()
  await db.schema.dropTable('recovery_codes').execute()
  await db.schema.dropTable('totp_factors').execute()
}
