/**
 * SQL for passkeys. The two decisions that must have one winner are single statements: taking a
 * challenge (DELETE ... RETURNING) and advancing a sign counter (conditional UPDATE ... RETURNING).
 */
import type { Insertable, Kysely, Transaction } from 'kysely'
import type { Database, PasskeyChallengesTable, PasskeysTable } from '../../../db/schema'

type Db = Kysely<Database> | Transaction<Database>

export async function insertChallenge(
  db: Db,
  row: Insertable<PasskeyChallengesTable>,
): Promise<void> {
  await db.insertInto('passkey_challenges').values(row).execute()
}

/**
 * Takes a live challenge issued for `purpose` to this device (and, for registration, this
 * account). Deleting it is the take: of two requests with one challenge, one gets the row. A
 * challenge presented from another device or account is left alone, so it cannot be burnt by
 * someone who merely saw it.
 */
export async function takeChallenge(db: Db, q: { hash: string; purpose: PasskeyChallengesTable['purpose']; visitorRowId: number; userId: number | null; now: Date }) {
  let query = db
    .deleteFrom('passkey_challenges')
    .where('challenge_hash', '=', q.hash)
    .where('purpose', '=', q.purpose)
    .where('visitor_id', '=', q.visitorRowId)
    .where('expires_at', '>', q.now)
  query = q.userId === null ? query.where('user_id', 'is', null) : query.where('user_id', '=', q.userId)
  return query.returning(['challenge_hash', 'user_handle']).executeTakeFirst()
}

/** Drops an account's earlier registration challenges: one registration in progress at a time bounds the rows a session can create. */
export async function deleteRegistrationChallenges(db: Db, userId: number): Promise<void> {
  await db.deleteFrom('passkey_challenges').where('purpose', '=', 'register').where('user_id', '=', userId).execute()
}

export async function deleteExpiredChallenges(db: Db, before: Date): Promise<void> {
  await db.deleteFrom('passkey_challenges').where('expires_at', '<', before).execute()
}

const VIEW_COLUMNS = ['id', 'name', 'created_at', 'last_used_at', 'backup_eligible', 'backed_up', 'transports'] as const

export function listPasskeys(db: Db, userId: number) {
  return db.selectFrom('passkeys').select(VIEW_COLUMNS).where('user_id', '=', userId).orderBy('created_at', 'desc').orderBy('id', 'desc').execute()
}

/** What registration options exclude and reuse: the account's credential ids and its user handle. */
export function listCredentialIds(db: Db, userId: number) {
  return db.selectFrom('passkeys').select(['credential_id', 'transports', 'user_handle']).where('user_id', '=', userId).execute()
}

export function findByCredentialId(db: Db, credentialId: string) {
  return db
    .selectFrom('passkeys')
    .select(['id', 'user_id', 'credential_id', 'public_key', 'sign_count', 'transports', 'user_handle'])
    .where('credential_id', '=', credentialId)
    .executeTakeFirst()
}

/** The new row's view, or undefined when the credential id is already registered (to anyone). */
export function insertPasskey(db: Db, row: Insertable<PasskeysTable>) {
  return db.insertInto('passkeys').values(row).onConflict((oc) => oc.column('credential_id').doNothing()).returning(VIEW_COLUMNS).executeTakeFirst()
}

export async function deletePasskey(db: Db, userId: number, id: number): Promise<boolean> {
  return !!(await db.deleteFrom('passkeys').where('id', '=', id).where('user_id', '=', userId).returning('id').executeTakeFirst())
}

/** The renamed row's view, or undefined when the account has no passkey with that id. */
export function renamePasskey(db: Db, userId: number, id: number, name: string) {
  return db.updateTable('passkeys').set({ name }).where('id', '=', id).where('user_id', '=', userId).returning(VIEW_COLUMNS).executeTakeFirst()
}

/**
 * Records a use of the passkey. WebAuthn 6.1.1: when either counter is non-zero the new one must
 * be greater than the stored one, otherwise the authenticator may be cloned; two zeros mean an
 * authenticator without a counter. The condition sits in the UPDATE, so two assertions with one
 * counter value (a replay racing the original) advance it once.
 */
export async function advanceSignCount(db: Db, q: { id: number; signCount: number; backedUp: boolean; now: Date }): Promise<boolean> {
  const row = await db
    .updateTable('passkeys')
    .set({ sign_count: q.signCount, backed_up: q.backedUp, last_used_at: q.now })
    .where('id', '=', q.id)
    .where('sign_count', q.signCount === 0 ? '=' : '<', q.signCount)
    .returning('id')
    .executeTakeFirst()
  return !!row
}
