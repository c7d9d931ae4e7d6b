/**
 * api_tokens.suspended_until: a banned user's tokens fail verification until the ban ends. The ban
 * writes the ban's end here for every token of the user (in the ban's transaction) and unban
 * clears it, so the verification statement decides from the token row alone: no join to users
 * on the hot path, and a ban that runs out restores the tokens with no write at all.
 *
 * Not indexed: it is only read on rows found by hashed_token, and written by bans.
 *
 * Tokens of users banned before this migration are suspended here, until the end of their ban.
 */
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('api_tokens').addColumn('suspended_until', 'timestamptz').execute()
  await sql`
    update api_tokens t set suspended_until = u.banned_until
    from users u where u.id = t.user_id and u.banned_until > now()
  `.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('api_tokens').dropColumn('suspended_until').execute()
}
