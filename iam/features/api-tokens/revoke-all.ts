/**
 * "Revoke all my API tokens": one statement ends every valid token of the user,
 * and the same transaction records the bulk revocation as a security event. Used by the manage
 * action `revoke-all` and by a password reset that asks for it.
 */
import type { Kysely, Transaction } from 'kysely'
import type { Database } from '../../db/schema'
import type { Logger } from '../../../shared/log'
import { recordSecurityEvent } from '../security-events/repository'
import { failResult, okResult, REASONS, type Result } from './results'
import { revokeAllTokensOf } from './user-tokens'
import { isDependencyOutage } from '../../lib/outage'

export type RevokeAllSuccess = { msg: string; revokedCount: number; userId: number }

export const REVOKED_ALL_MSG = 'All API tokens revoked'

/** Inside the caller's transaction: revokes and records; the number of tokens it ended. */
export async function revokeAllInTransaction(
  trx: Transaction<Database>,
  input: { userId: number; ipAddress: string | null; visitorRowId: number | null; cause: 'manage' | 'password_reset'; at: Date },
): Promise<number> {
  const ids = await revokeAllTokensOf(trx, input.userId)
  await recordSecurityEvent(trx, {
    type: 'api_tokens_revoked_all',
    userId: input.userId,
    visitorRowId: input.visitorRowId,
    ipAddress: input.ipAddress,
    details: { cause: input.cause, revokedCount: ids.length, tokenIds: ids },
    at: input.at,
  })
  return ids.length
}

/** The manage action: revokes every valid token of `userId` (an empty set is a success too). */
export async function revokeAllApiTokens(
  deps: { db: Kysely<Database>; log: Logger; now: () => number },
  input: { userId: number; ipAddress: string; visitorRowId: number | null },
): Promise<Result<RevokeAllSuccess>> {
  const at = new Date(deps.now())
  try {
    const revokedCount = await deps.db
      .transaction()
      .execute((trx) => revokeAllInTransaction(trx, { ...input, cause: 'manage', at }))
    deps.log.info('api tokens revoked in bulk', { branch: 'api_tokens', type: 'revoke-all', userId: input.userId, revokedCount })
    return okResult(at.toISOString(), { msg: REVOKED_ALL_MSG, revokedCount, userId: input.userId })
  } catch (error) {
    // an outage is answered 503 by the error handler, not as this API's own failure
    if (isDependencyOutage(error)) throw error
    deps.log.error('bulk api token revocation failed', { branch: 'api_tokens', userId: input.userId, error: (error as Error).message })
    return failResult(at.toISOString(), REASONS.errorInvalidating, 'internal_error')
  }
}
