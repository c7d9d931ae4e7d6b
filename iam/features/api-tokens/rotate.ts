/**
 * rotateApiKey as ONE transaction: the old row is revoked (row-locked UPDATE ... WHERE valid = 1),
 * optionally deleted, and the replacement created, or nothing changes. Concurrent rotations of one
 * token queue on the old row's lock; after the first commits the others find it revoked, so
 * exactly one replacement exists.
 */
import type { Kysely } from 'kysely'
import type { Database } from '../../db/schema'
import type { Logger } from '../../../shared/log'
import { createInTransaction } from './create'
import * as repo from './repository'
import { failResult, isPrivilege, okResult, REASONS, type Fail, type Privilege, type Result, type RotationSuccess } from './results'
import { storedHashOf } from './token-format'
import { isDependencyOutage } from '../../lib/outage'

export type RotateInput = {
  rawOldToken: string
  privilegeType: Privilege
  name: string
  deleteOnRotation: boolean
  ipAddress?: string[] | null
  expires?: number | null
  prefix: string
}

/** Thrown inside the transaction to roll it back with an expected outcome. */
class Rollback extends Error {
  constructor(readonly result: Fail) {
    super(result.reason)
  }
}

export async function rotateWith(
  deps: { db: Kysely<Database>; log: Logger; at: Date; limit: number },
  input: RotateInput,
): Promise<Result<RotationSuccess>> {
  const { db, log, at } = deps
  const date = at.toISOString()
  const hash = storedHashOf(input.rawOldToken)
  if (!hash || !isPrivilege(input.privilegeType)) return failResult(date, REASONS.cannotRotateRevoked, 'token_revoked')
  try {
    return await db.transaction().execute(async (trx): Promise<Result<RotationSuccess>> => {
      const old = await repo.revokeByHash(trx, hash, input.privilegeType, at)
      if (!old) {
        log.warn('rotation of a revoked, unknown or other-privilege token refused')
        return failResult(date, REASONS.cannotRotateRevoked, 'token_revoked')
      }
      // expired: the revocation above is the expiry transition; keep it (commit) and refuse
      if (old.expired) return failResult(date, REASONS.cannotRotateRevoked, 'token_revoked')
      if (input.deleteOnRotation && !(await repo.deleteRevoked(trx, old.id, old.user_id))) {
        throw new Rollback(failResult(date, REASONS.cannotRotateNow, 'token_not_rotatable'))
      }
      const created = await createInTransaction(
        trx,
        {
          userId: old.user_id,
          privilegeType: input.privilegeType,
          name: input.name,
          prefix: input.prefix,
          expires: input.expires,
          ipAddresses: input.ipAddress,
        },
        at,
        deps.limit,
      )
      if (!created.ok) throw new Rollback(failResult(date, created.reason, created.code))
      if (!input.deleteOnRotation) await repo.setRotatedTo(trx, old.id, created.id)
      log.info('api token rotated', { userId: old.user_id, oldRowId: old.id, newRowId: created.id })
      return okResult(date, {
        msg: 'Token rotated successfully',
        newRawToken: created.data.rawApiKey,
        newExpiry: created.data.expiresAt,
      })
    })
  } catch (error) {
    // an outage is answered 503 by the error handler, not as this API's own failure
    if (isDependencyOutage(error)) throw error
    if (error instanceof Rollback) {
      log.warn('rotation rolled back', { reason: error.result.reason })
      return error.result
    }
    log.error('rotation failed', { error })
    return failResult(date, REASONS.serverErrorRotating, 'internal_error')
  }
}
