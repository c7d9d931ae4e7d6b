/**
 * SQL for sign-up with a passkey (passkey-signup.ts). The steps that must have one winner are
 * single statements: using the code (a conditional UPDATE on the code's MAC) and taking the
 * ceremony (DELETE ... RETURNING), so a replayed or concurrent request finds nothing.
 */
import type { Kysely, Transaction } from 'kysely'
import type { Database } from '../../db/schema'

type Db = Kysely<Database> | Transaction<Database>

/** A new request for an address replaces the one before it (its code and any ceremony die with it). */
export async function putCode(db: Db, row: { email: string; name: string | null; codeHmac: string; codeExpiresAt: Date; now: Date }): Promise<void> {
  const values = {
    name: row.name,
    code_hmac: row.codeHmac,
    code_expires_at: row.codeExpiresAt,
    code_attempts: 0,
    ceremony_hash: null,
    challenge_hash: null,
    user_handle: null,
    visitor_id: null,
    ceremony_expires_at: null,
    created_at: row.now,
  }
  await db
    .insertInto('passkey_signups')
    .values({ email: row.email, ...values })
    .onConflict((oc) => oc.column('email').doUpdateSet(values))
    .execute()
}

/** Housekeeping when a new code is issued: rows whose code and ceremony are long dead. */
export async function deleteStale(db: Db, before: Date): Promise<void> {
  await db.deleteFrom('passkey_signups').where('created_at', '<', before).execute()
}

/** The live code of an address (its MAC and how many wrong tries it has had), or undefined. */
export function findLiveCode(db: Db, email: string, now: Date) {
  return db
    .selectFrom('passkey_signups')
    .select(['email', 'name', 'code_hmac', 'code_attempts'])
    .where('email', '=', email)
    .where('code_hmac', 'is not', null)
    .where('code_expires_at', '>', now)
    .executeTakeFirst()
}

/** One more wrong try of the address's code; the code dies at `maxAttempts`. */
export async function countWrongCode(db: Db, email: string, maxAttempts: number): Promise<void> {
  await db
    .updateTable('passkey_signups')
    .set((eb) => ({
      code_attempts: eb('code_attempts', '+', 1),
      code_hmac: eb.case().when('code_attempts', '>=', maxAttempts - 1).then(null).else(eb.ref('code_hmac')).end(),
    }))
    .where('email', '=', email)
    .where('code_hmac', 'is not', null)
    .execute()
}

/**
 * Spends the code (still the one that was checked, still live) and opens the ceremony in the same
 * statement: of two requests with one right code, one gets the row.
 */
export async function openCeremony(
  db: Db,
  q: { email: string; codeHmac: string; now: Date; ceremonyHash: string; challengeHash: string; userHandle: string; visitorRowId: number; expiresAt: Date },
): Promise<boolean> {
  const row = await db
    .updateTable('passkey_signups')
    .set({
      code_hmac: null,
      ceremony_hash: q.ceremonyHash,
      challenge_hash: q.challengeHash,
      user_handle: q.userHandle,
      visitor_id: q.visitorRowId,
      ceremony_expires_at: q.expiresAt,
    })
    .where('email', '=', q.email)
    .where('code_hmac', '=', q.codeHmac)
    .where('code_expires_at', '>', q.now)
    .returning('email')
    .executeTakeFirst()
  return !!row
}

/**
 * Takes a live ceremony opened on this device. Deleting the row is the take; a ceremony id
 * presented from another device is left alone, so whoever merely saw it cannot burn it.
 */
export function takeCeremony(db: Db, q: { ceremonyHash: string; visitorRowId: number; now: Date }) {
  return db
    .deleteFrom('passkey_signups')
    .where('ceremony_hash', '=', q.ceremonyHash)
    .where('visitor_id', '=', q.visitorRowId)
    .where('ceremony_expires_at', '>', q.now)
    .returning(['email', 'name', 'challenge_hash', 'user_handle'])
    .executeTakeFirst()
}
