/**
 * privateActionManager: the owner check behind every management action on one token. The public
 * identifier's checksum is verified before any query (a forged handle costs no lookup); then a
 * row must match id, owner, name and public identifier and be valid. The action then runs on the
 * row's stored hash, so the raw token is never needed after creation.
 */
import type { Kysely } from 'kysely'
import type { Database } from '../../db/schema'
import type { Logger } from '../../../shared/log'
import * as repo from './repository'
import {
  failResult, REASONS,
  type ManagerAction, type ManagerResult, type MessageSuccess, type Privilege, type Result,
  type RevokeSuccess, type RotationSuccess, type SingleTokenMeta,
} from './results'
import { isValidPublicIdentifier } from './token-format'
import { MAX_NAME_LENGTH } from '../../contract/api-token-inputs'
import { isDependencyOutage } from '../../lib/outage'

/** The helpers the manager dispatches to (the library's own operations). */
export type ManagerOperations = {
  revokeApiKey(rawKey: string, providedPrivilege: Privilege): Promise<Result<RevokeSuccess | 'Token invalided successfully'>>
  rotateApiKey(
    rawOldToken: string, privilegeType: Privilege, name: string, deleteOnRotation?: boolean,
    ipAddress?: string[] | null, expires?: number | null, prefix?: string,
  ): Promise<Result<RotationSuccess>>
  getUserApiKeysMetaData(rawApiKey: string, providedPrivilege: Privilege): Promise<Result<SingleTokenMeta>>
  updateRestriction(userId: number, rawToken: string, newIpAddress: string[] | null): Promise<Result<MessageSuccess>>
  updatePrivileges(userId: number, rawToken: string, newPrivileges: Privilege): Promise<Result<MessageSuccess>>
}

const isRowId = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value > 0 && value <= 2_147_483_647

export async function privateActionManagerWith(
  deps: { db: Kysely<Database>; log: Logger; now: () => number; operations: ManagerOperations },
  userId: number,
  tokenId: number,
  publicIdentifier: string,
  tokenName: string,
  action: ManagerAction,
): Promise<ManagerResult> {
  const date = () => new Date(deps.now()).toISOString()
  const { operations: op, log } = deps
  if (!isValidPublicIdentifier(publicIdentifier)) {
    log.info('management action with an invalid public identifier', { userId })
    return failResult(date(), REASONS.invalidIdentity, 'token_identity_mismatch')
  }
  if (!isRowId(userId) || !isRowId(tokenId) || typeof tokenName !== 'string' || tokenName.length > MAX_NAME_LENGTH) {
    return failResult(date(), REASONS.badRequest, 'bad_request')
  }
  try {
    const row = await repo.findOwnedValidToken(deps.db, userId, tokenId, tokenName, publicIdentifier)
    if (!row) {
      log.info('management action on a token the user does not own or that is not valid', { userId, rowId: tokenId })
      // one text (`Bad Request`) for a token that is not the user's and for one that is not valid,
      // so the answer does not tell another user's token from none; its code says which
      return failResult(date(), REASONS.badRequest, 'token_not_found')
    }
    switch (action.action) {
      case 'revoke':
        return await op.revokeApiKey(row.hashed_token, row.privilege_type)
      case 'rotate': {
        // the replacement inherits name, privilege, prefix, remaining lifetime and IP restrictions
        const ips = Array.isArray(row.restricted_to_ip_address) && row.restricted_to_ip_address.length ? row.restricted_to_ip_address : undefined
        const remainingMs = row.expires_at ? Math.max(1, new Date(row.expires_at).getTime() - deps.now()) : undefined
        return await op.rotateApiKey(row.hashed_token, row.privilege_type, row.name, false, ips, remainingMs, row.prefix)
      }
      case 'metadata':
        return await op.getUserApiKeysMetaData(row.hashed_token, row.privilege_type)
      case 'ip-restriction-update':
        return await op.updateRestriction(userId, row.hashed_token, action.newIpAddress)
      case 'privilege-update':
        return await op.updatePrivileges(userId, row.hashed_token, action.newPrivileges)
      default:
        return failResult(date(), REASONS.badRequest, 'bad_request')
    }
  } catch (error) {
    // an outage is answered 503 by the error handler, not as this API's own failure
    if (isDependencyOutage(error)) throw error
    log.error('management action failed', { error })
    return failResult(date(), REASONS.serverErrorManager, 'internal_error')
  }
}
