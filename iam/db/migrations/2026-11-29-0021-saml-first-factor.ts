/**
 * A SAML assertion as the first factor (features/enterprise/saml-login.ts): a second-factor
 * challenge issued after one keeps `first_factor = 'saml'`, so the session the step opens has the
 * `amr` `saml otp mfa` (RFC 8176 method references), not the password's `pwd otp mfa`. Migration
 * 0018 allowed only 'pwd', 'email' and 'email otp'; the check is replaced by one that adds 'saml'.
 * PostgreSQL named the column check `second_factor_challenges_first_factor_check` (its rule:
 * table, column, `check`), on PGlite too.
 */
import { sql, type Kysely } from 'kysely'

const CHECK = 'second_factor_challenges_first_factor_check'

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('second_factor_challenges').dropConstraint(CHECK).ifExists().execute()
  await db.schema
    .alterTable('second_factor_challenges')
    .addCheckConstraint(CHECK, sql`first_factor in ('pwd', 'email', 'email otp', 'saml')`)
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  // a challenge lives minutes: one after a SAML assertion is ended rather than relabelled a password's
  await db.deleteFrom('second_factor_challenges').where('first_factor', '=', 'saml').execute()
  await db.schema.alterTable('second_factor_challenges').dropConstraint(CHECK).ifExists().execute()
  await db.schema.alterTable('second_factor_challenges').addCheckConstraint(CHECK, sql`first_factor in ('pwd', 'email', 'email otp')`).execute()
}
