/**
 * Suspensions say why (features/users/suspension.ts): users.ban_reason, the administrator's reason
 * for the account's ban, shown to the person at sign-in and in the console. Null for a ban made
 * before this column and for an account never banned; cleared when the ban is lifted.
 *
 * The check repeats the admin route's length rule (1 to 500 characters), so no other writer stores
 * an empty or unbounded one.
 */
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('users')
    .addColumn('ban_reason', 'text', (c) => c.check(sql`char_length(ban_reason) between 1 and 500`))
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('users').dropColumn('ban_reason').execute()
}
