/**
 * Email as a first factor (features/users/email-sign-in.ts): second_factor_challenges.first_factor
 * names how the first step of a sign-in was made ('pwd', or 'email' / 'email otp' for an emailed
 * link or code, RFC 8176 method references), so the session the second factor opens says both in
 * its `amr`. Null for a challenge made before this column: those came after a password.
 */
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('second_factor_challenges')
    .addColumn('first_factor', 'text', (c) => c.check(sql`first_factor in ('pwd', 'email', 'email otp')`))
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('second_factor_challenges').dropColumn('first_factor').execute()
}
