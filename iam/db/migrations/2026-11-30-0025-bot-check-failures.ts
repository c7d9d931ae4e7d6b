/**
 * The admin console's sign-ups per hour (GET /admin/stats/signups, features/admin/signup-stats.ts):
 * an index on users.created_at so the last hours are a range scan rather than a read of every
 * account, and the refused bot checks counted per hour and reason
 * (features/bot-challenge/failure-tally.ts). A counter row per hour and reason, never a row per
 * refusal: a flood of forged solutions costs a few upserts a second, and the table grows by at
 * most four rows an hour.
 */
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('users_created_idx').on('users').column('created_at').execute()
  await db.schema
    .createTable('bot_check_failures')
    // the start of the hour (UTC) the refusals fell in
    .addColumn('hour', 'timestamptz', (c) => c.notNull())
    // missing, invalid, expired or replayed (features/bot-challenge/bot-proof.ts BotProofFailure)
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('failures', 'bigint', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('bot_check_failures_pkey', ['hour', 'reason'])
    .addCheckConstraint('bot_check_failures_reason_check', sql`reason in ('missing', 'invalid', 'expired', 'replayed')`)
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('bot_check_failures').execute()
  await db.schema.dropIndex('users_created_idx').execute()
}
