/**
 * All API tokens of one user at once: what the recovery notices name and what "revoke all" ends.
 * Tokens are machine credentials that outlive a password reset or an email
 * change, so whoever recovers an account must see them and be able to end them in one step.
 */
import type { Kysely, Transaction } from 'kysely'
import type { Database } from '../../db/schema'
import type { TokenSummary } from '../mail/templates'

type Db = Kysely<Database> | Transaction<Database>

/** Valid, unexpired tokens of the user, oldest first: names and public identifiers only. */
export async function listLiveTokenSummaries(db: Db, userId: number, at: Date): Promise<TokenSummary[]> {
  const rows = await db
    .selectFrom('api_tokens')
    .select(['name', 'public_identifier'])
    .where('user_id', '=', userId)
    .where('valid', '=', 1)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', at)]))
    .orderBy('id')
    .execute()
  return rows.map((r) => ({ name: r.name, publicIdentifier: r.public_identifier }))
}

/** Marks every valid token of the user invalid in one statement; the ids it ended. */
export async function revokeAllTokensOf(db: Db, userId: number): Promise<number[]> {
  const rows = await db.updateTable('api_tokens').set({ valid: 0 }).where('user_id', '=', userId).where('valid', '=', 1).returning('id').execute()
  return rows.map((r) => r.id)
}
