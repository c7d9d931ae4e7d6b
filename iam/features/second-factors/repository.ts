/**
 * SQL for second factors. Every state change that decides an outcome (a TOTP step taken, a recovery
 * code spent, a challenge attempt counted or used) is one conditional UPDATE ... RETURNING, so
 * concurrent requests get exactly one winner.
 */
import type { Kysely, Transaction } from 'kysely'
import type { Database } from '../../db/schema'

type Db = Kysely<Database> | Transaction<Database>

export function findTotpFactor(db: Db, userId: number) {
  return db.selectFrom('totp_factors').select(['secret_sealed', 'enabled_at']).where('user_id', '=', userId).executeTakeFirst()
}

/** Whether the account has an enabled second factor (the login's only question). */
export async function hasSecondFactor(db: Db, userId: number): Promise<boolean> {
  const row = await db.selectFrom('totp_factors').select('user_id').where('user_id', '=', userId).where('enabled_at', 'is not', null).executeTakeFirst()
  return !!row
}

/** Locks the account's enabled TOTP row until the transaction ends; false when TOTP is not enabled. */
export async function lockEnabledTotp(db: Transaction<Database>, userId: number): Promise<boolean> {
  const row = await db.selectFrom('totp_factors').select('user_id').where('user_id', '=', userId).where('enabled_at', 'is not', null).forUpdate().executeTakeFirst()
  return !!row
}

/** Starts or replaces a pending setup; false when TOTP is already enabled (the row is left alone). */
export async function upsertPendingTotp(db: Db, userId: number, sealed: string, now: Date): Promise<boolean> {
  const row = await db
    .insertInto('totp_factors')
    .values({ user_id: userId, secret_sealed: sealed, created_at: now })
    .onConflict((oc) =>
      oc.column('user_id').doUpdateSet({ secret_sealed: sealed, created_at: now, last_step: -1 }).where('totp_factors.enabled_at', 'is', null),
    )
    .returning('user_id')
    .executeTakeFirst()
  return !!row
}

/**
 * Takes time step `step` for the user: succeeds only when it is later than the last one taken, and
 * only for the state asked (`pending` for enable, `enabled` for sign-in and disable). Under READ
 * COMMITTED a concurrent UPDATE waits for the row lock and re-checks the WHERE after the winner
 * commits, so one code submitted twenty times in parallel is taken once. Enabling also requires
 * the secret the code was checked against (a setup replacing it meanwhile makes this lose).
 */
export async function takeTotpStep(
  db: Db,
  userId: number,
  step: number,
  take: { state: 'enabled' } | { state: 'pending'; enableAt: Date; sealed: string },
): Promise<boolean> {
  let query = db.updateTable('totp_factors').where('user_id', '=', userId).where('last_step', '<', step)
  query =
    take.state === 'pending'
      ? query.set({ last_step: step, enabled_at: take.enableAt }).where('enabled_at', 'is', null).where('secret_sealed', '=', take.sealed)
      : query.set({ last_step: step }).where('enabled_at', 'is not', null)
  return !!(await query.returning('user_id').executeTakeFirst())
}

export async function replaceRecoveryCodes(db: Db, userId: number, hashes: string[], now: Date): Promise<void> {
  await db.deleteFrom('recovery_codes').where('user_id', '=', userId).execute()
  await db.insertInto('recovery_codes').values(hashes.map((code_hash) => ({ user_id: userId, code_hash, created_at: now }))).execute()
}

/** Spends one recovery code; false when it is unknown, someone else's or already used. */
export async function spendRecoveryCode(db: Db, userId: number, hash: string, now: Date): Promise<boolean> {
  const row = await db
    .updateTable('recovery_codes')
    .set({ used_at: now })
    .where('user_id', '=', userId)
    .where('code_hash', '=', hash)
    .where('used_at', 'is', null)
    .returning('id')
    .executeTakeFirst()
  return !!row
}

export async function countUnusedRecoveryCodes(db: Db, userId: number): Promise<number> {
  const row = await db
    .selectFrom('recovery_codes')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('user_id', '=', userId)
    .where('used_at', 'is', null)
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

/** Removes TOTP and its recovery codes; false when there was no enabled factor to remove. */
export async function deleteSecondFactor(db: Db, userId: number): Promise<boolean> {
  const row = await db.deleteFrom('totp_factors').where('user_id', '=', userId).where('enabled_at', 'is not', null).returning('user_id').executeTakeFirst()
  await db.deleteFrom('recovery_codes').where('user_id', '=', userId).execute()
  return !!row
}

export async function insertChallenge(
  db: Db,
  row: { challenge_hash: string; user_id: number; visitor_id: number; remember: boolean; first_factor: string; created_at: Date; expires_at: Date },
): Promise<void> {
  await db.insertInto('second_factor_challenges').values(row).execute()
}

/**
 * Ends the account's other live challenges: each right password would otherwise add a challenge
 * with its own attempts beside the older ones, which stay live (code-budget.ts bounds the account
 * as a whole; this keeps one challenge per account at a time).
 */
export async function endOtherChallenges(db: Db, input: { userId: number; keep: string; now: Date }): Promise<void> {
  await db
    .updateTable('second_factor_challenges')
    .set({ used_at: input.now })
    .where('user_id', '=', input.userId)
    .where('used_at', 'is', null)
    .where('expires_at', '>', input.now)
    .where('created_at', '<=', input.now)
    .where('challenge_hash', '!=', input.keep)
    .execute()
}

/**
 * Counts one attempt on a live challenge of this device under `max`; the challenge's user and
 * remember flag, or null (unknown, another device's, expired, used or out of attempts).
 */
export async function countChallengeAttempt(db: Db, where: { hash: string; visitorRowId: number; now: Date; max: number }) {
  const row = await db
    .updateTable('second_factor_challenges')
    .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
    .where('challenge_hash', '=', where.hash)
    .where('visitor_id', '=', where.visitorRowId)
    .where('used_at', 'is', null)
    .where('expires_at', '>', where.now)
    .where('attempts', '<', where.max)
    .returning(['user_id', 'remember', 'attempts', 'first_factor'])
    .executeTakeFirst()
  return row ?? null
}

/** Marks the challenge used; false when another request already did. */
export async function useChallenge(db: Db, hash: string, now: Date): Promise<boolean> {
  const row = await db
    .updateTable('second_factor_challenges')
    .set({ used_at: now })
    .where('challenge_hash', '=', hash)
    .where('used_at', 'is', null)
    .returning('challenge_hash')
    .executeTakeFirst()
  return !!row
}

/** Housekeeping: challenges past their life are dead weight (called when a new one is issued). */
export async function deleteExpiredChallenges(db: Db, before: Date): Promise<void> {
  await db.deleteFrom('second_factor_challenges').where('expires_at', '<', before).execute()
}
