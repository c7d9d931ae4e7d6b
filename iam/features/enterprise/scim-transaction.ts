/**
 * The one way a SCIM write runs (scim-users.ts, scim-groups.ts): in a transaction with the
 * organization's row locked, so two provisioning calls for one organization apply one after the
 * other (a name or an address checked free stays free until the write), and a failure the work
 * returns undoes every write it made before returning it.
 */
import { sql, type Kysely, type Transaction } from 'kysely'
import type { Database } from '../../db/schema'
import type { ScimTenant } from './scim-tokens'
import type { ScimFailure } from './scim-users'

/** A failure the work returned, thrown so the transaction rolls back, and returned after it. */
class Rollback extends Error {
  constructor(readonly failure: ScimFailure) {
    super(failure.detail)
  }
}

const isFailure = (result: unknown): result is ScimFailure => !!result && typeof result === 'object' && 'ok' in result && result.ok === false

/**
 * Runs `work` with the organization locked; a ScimFailure it returns rolls the transaction back.
 * `failureOf` turns an error the database raised (a unique index, say) into the SCIM answer it
 * stands for; anything it leaves undefined is thrown on.
 */
export async function inOrgTransaction<T>(
  db: Kysely<Database>,
  tenant: ScimTenant,
  work: (trx: Transaction<Database>) => Promise<T | ScimFailure>,
  failureOf: (error: unknown) => ScimFailure | undefined = () => undefined,
): Promise<T | ScimFailure> {
  try {
    return await db.transaction().execute(async (trx) => {
      await sql`select id from organizations where id = ${tenant.orgId} for update`.execute(trx)
      const result = await work(trx)
      if (isFailure(result)) throw new Rollback(result)
      return result
    })
  } catch (error) {
    if (error instanceof Rollback) return error.failure
    const failure = failureOf(error)
    if (failure) return failure
    throw error
  }
}
