/**
 * An email change waiting for its confirmation (email-change.ts): the live CONFIRM_EMAIL_CHANGE
 * link of the account. SQL only; the account page reads it and may cancel it.
 */
import type { Kysely, Transaction } from 'kysely'
import type { Database } from '../../db/schema'
import { CONFIRM_EMAIL_CHANGE_PURPOSE } from '../mfa/purposes'

type Db = Kysely<Database> | Transaction<Database>

/** The address a live confirmation link was mailed to and when that link expires; null when none waits. */
export async function findPendingEmailChange(db: Db, userId: number, now: Date): Promise<{ email: string; expiresAt: Date } | null> {
  const row = await db
    .selectFrom('magic_links')
    .select(['data', 'expires_at'])
    .where('user_id', '=', userId)
    .where('purpose', '=', CONFIRM_EMAIL_CHANGE_PURPOSE)
    .where('consumed_at', 'is', null)
    .where('expires_at', '>', now)
    .orderBy('created_at', 'desc')
    .executeTakeFirst()
  const email = row?.data['email']
  return row && typeof email === 'string' ? { email, expiresAt: row.expires_at } : null
}

/** What the live confirmation link carries (the pending change, email-change.ts), or null when none waits. */
export async function findPendingEmailChangeData(db: Db, userId: number, now: Date): Promise<Record<string, unknown> | null> {
  const row = await db
    .selectFrom('magic_links')
    .select(['data'])
    .where('user_id', '=', userId)
    .where('purpose', '=', CONFIRM_EMAIL_CHANGE_PURPOSE)
    .where('consumed_at', 'is', null)
    .where('expires_at', '>', now)
    .orderBy('created_at', 'desc')
    .executeTakeFirst()
  return row?.data ?? null
}

/** Ends every live confirmation link of the account; true when one was live. */
export async function cancelPendingEmailChange(db: Db, userId: number, now: Date): Promise<boolean> {
  const result = await db
    .updateTable('magic_links')
    .set({ consumed_at: now })
    .where('user_id', '=', userId)
    .where('purpose', '=', CONFIRM_EMAIL_CHANGE_PURPOSE)
    .where('consumed_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst()
  return result.numUpdatedRows > 0n
}
