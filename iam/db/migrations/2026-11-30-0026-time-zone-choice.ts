/**
 * users.time_zone_chosen: true once the owner picked the account's time zone on the account page
 * (POST /auth/profile `{ timeZone }`, iam/features/users/profile.ts). An explicit choice wins: a
 * sign-in's browser zone (users-repo.ts rememberTimeZone) then leaves users.time_zone alone, so a
 * person who reads mails in Berlin time keeps Berlin time after signing in from a laptop set to
 * New York. False (the default, every account before this migration) keeps the browser's zone
 * following the latest sign-in, as migration 0024 wrote it.
 */
import type { Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('users')
    .addColumn('time_zone_chosen', 'boolean', (c) => c.notNull().defaultTo(false))
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('users').dropColumn('time_zone_chosen').execute()
}
