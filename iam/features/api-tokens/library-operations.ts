/**
 * The library form of the API token feature (iam/api-tokens.ts, docs/api-tokens.md): fixed names,
 * parameter lists and `{ ok, date, data | reason }` result envelopes, bound to the dependencies passed in.
 * Direct calls do not authenticate anyone: only trusted server code may call them.
 */
import type { Kysely } from 'kysely'
import type { Database } from '../../db/schema'
import type { IamConfig } from '../../lib/config-schema'
import type { Logger } from '../../../shared/log'
import { createToken } from './create'
import { toStoredIpList } from '../../contract/ip-list'
import { privateActionManagerWith } from './private-action-manager'
import * as repo from './repository'
import {
  CREATION_REASONS, failResult, isPrivilege, okResult, REASONS,
  type AllValidTokensList, type CreationSuccess, type ManagerResult, type MessageSuccess,
  type Privilege, type Result, type RevokeSuccess, type RotationSuccess, type SingleTokenMeta, type VerifySuccess,
} from './results'
import { rotateWith } from './rotate'
import { storedHashOf } from './token-format'
import { verifyApiKeyWith } from './verify'
import { isDependencyOutage } from '../../lib/outage'

/** A function's arguments after its first (the bound deps). */
type AfterDeps<F extends (deps: never, ...rest: never[]) => unknown> = F extends (deps: never, ...rest: infer R) => unknown ? R : never
type ManagerActionArgs = AfterDeps<typeof privateActionManagerWith>
type VerifyApiKeyArgs = AfterDeps<typeof verifyApiKeyWith>

export type ApiTokenLibraryDeps = {
  db: Kysely<Database>
  config: { apiTokens: Pick<IamConfig['apiTokens'], 'limitTokensPerUser'> }
  log: Logger
  /** ms since epoch */
  now?: () => number
}

const INVALIDED = 'Token invalided successfully' as const

/** Binds the nine library operations to `deps`. */
export function createApiTokenLibrary(deps: ApiTokenLibraryDeps) {
  const now = deps.now ?? Date.now
  const log = (type: string) => deps.log.child({ branch: 'api_tokens', type })
  const operations = bindOperations(deps, now)

  // the arguments are privateActionManagerWith's after its deps: one signature to keep in step
  function privateActionManager(...args: ManagerActionArgs): Promise<ManagerResult> {
    // One instant for the whole action: a rotation's inherited lifetime ends exactly where the old one did.
    const at = now()
    const frozen = () => at
    return privateActionManagerWith(
      { db: deps.db, log: log('action_manager'), now: frozen, operations: bindOperations(deps, frozen) },
      ...args,
    )
  }

  return { ...operations, privateActionManager }
}

/** The eight helper operations on `deps`, reading time from `now`. */
function bindOperations(deps: ApiTokenLibraryDeps, now: () => number) {
  const { db } = deps
  const limit = () => deps.config.apiTokens.limitTokensPerUser
  const log = (type: string) => deps.log.child({ branch: 'api_tokens', type })
  const stamp = () => new Date(now())
  const verifyDeps = { db, log: deps.log, now }

  async function createApiKey(
    userId: number,
    privilegeType: Privilege,
    name: string,
    prefix = 'api',
    expires?: number | null,
    ipAddresses?: string[] | null,
  ): Promise<Result<CreationSuccess>> {
    const at = stamp()
    try {
      const created = await createToken(db, { userId, privilegeType, name, prefix, expires, ipAddresses }, at, limit())
      if (!created.ok) {
        log('create').info('api token not created', { userId, reason: created.reason })
        return failResult(at.toISOString(), created.reason, created.code)
      }
      log('create').info('api token created', { userId, rowId: created.id })
      return okResult(at.toISOString(), created.data)
    } catch (error) {
      // an outage is answered 503 by the error handler, not as this API's own failure
      if (isDependencyOutage(error)) throw error
      log('create').error('api token creation failed', { userId, error })
      return failResult(at.toISOString(), CREATION_REASONS.serverErrorCreating, 'internal_error')
    }
  }

  // the arguments are verifyApiKeyWith's after its deps (defaults included): one signature to keep in step
  function verifyApiKey(...args: VerifyApiKeyArgs): Promise<Result<VerifySuccess>> {
    return verifyApiKeyWith(verifyDeps, ...args)
  }

  /** Idempotent: an unknown, invalid or unverifiable token still answers ok with the plain message. */
  async function revokeApiKey(
    rawKey: string,
    providedPrivilege: Privilege,
  ): Promise<Result<RevokeSuccess | typeof INVALIDED>> {
    const at = stamp()
    const date = at.toISOString()
    const hash = storedHashOf(rawKey)
    if (!hash || !isPrivilege(providedPrivilege)) return okResult(date, INVALIDED)
    try {
      const row = await repo.revokeByHash(db, hash, providedPrivilege, at)
      // an expired token fails verification: it is invalidated all the same, answered as invalid
      if (!row || row.expired) return okResult(date, INVALIDED)
      log('revoke').info('api token revoked', { userId: row.user_id, rowId: row.id })
      return okResult(date, { msg: INVALIDED, invalidedTokenId: row.id, userId: row.user_id })
    } catch (error) {
      // an outage is answered 503 by the error handler, not as this API's own failure
      if (isDependencyOutage(error)) throw error
      log('revoke').error('api token revocation failed', { error })
      return failResult(date, REASONS.errorInvalidating, 'internal_error')
    }
  }

  function rotateApiKey(
    rawOldToken: string,
    privilegeType: Privilege,
    name: string,
    deleteOnRotation = false,
    ipAddress?: string[] | null,
    expires?: number | null,
    prefix = 'api',
  ): Promise<Result<RotationSuccess>> {
    return rotateWith(
      { db, log: log('rotate'), at: stamp(), limit: limit() },
      { rawOldToken, privilegeType, name, deleteOnRotation, ipAddress, expires, prefix },
    )
  }

  async function getUserApiKeysMetaData(rawApiKey: string, providedPrivilege: Privilege): Promise<Result<SingleTokenMeta>> {
    // counters skipped, IP check bypassed, internal hash: a lookup, not a use
    const verified = await verifyApiKey(rawApiKey, true, providedPrivilege, true, true, undefined)
    if (!verified.ok) return verified.reason ? verified : failResult(verified.date, REASONS.cantGetMetadata, 'api_key_invalid')
    try {
      const counts = await repo.countTokens(db, verified.data.userId, stamp())
      return okResult(verified.date, { tokenMeta: verified.data, counts })
    } catch (error) {
      // an outage is answered 503 by the error handler, not as this API's own failure
      if (isDependencyOutage(error)) throw error
      log('metadata').error('api token metadata failed', { error })
      return failResult(stamp().toISOString(), REASONS.errorGettingMetadata, 'internal_error')
    }
  }

  async function updateRestriction(
    userId: number,
    rawToken: string,
    newIpAddress: string[] | null,
  ): Promise<Result<MessageSuccess>> {
    const date = stamp().toISOString()
    const hash = storedHashOf(rawToken)
    const ips = toStoredIpList(newIpAddress)
    if (ips === undefined) return failResult(date, REASONS.badRequest, 'bad_request')
    if (!hash || !Number.isSafeInteger(userId)) return failResult(date, REASONS.notFoundOrUnauthorized, 'token_not_found')
    try {
      if (!(await repo.updateIpList(db, userId, hash, ips))) return failResult(date, REASONS.notFoundOrUnauthorized, 'token_not_found')
      log('update_ip').info('api token IP restriction updated', { userId, restricted: ips !== null })
      return okResult(date, { msg: 'Restriction updated successfully' })
    } catch (error) {
      // an outage is answered 503 by the error handler, not as this API's own failure
      if (isDependencyOutage(error)) throw error
      log('update_ip').error('api token IP restriction update failed', { error })
      return failResult(date, REASONS.internalServerError, 'internal_error')
    }
  }

  /** Performs no token verification: the caller (privateActionManager) has checked ownership. */
  async function updatePrivileges(userId: number, rawToken: string, newPrivileges: Privilege): Promise<Result<MessageSuccess>> {
    const date = stamp().toISOString()
    const hash = storedHashOf(rawToken)
    if (!isPrivilege(newPrivileges)) return failResult(date, REASONS.badRequest, 'bad_request')
    if (!hash || !Number.isSafeInteger(userId)) return failResult(date, REASONS.notFoundOrUnauthorized, 'token_not_found')
    try {
      if (!(await repo.updatePrivilege(db, userId, hash, newPrivileges))) return failResult(date, REASONS.notFoundOrUnauthorized, 'token_not_found')
      log('update_privileges').info('api token privilege updated', { userId, privilege: newPrivileges })
      return okResult(date, { msg: 'Privileges updated successfully' })
    } catch (error) {
      // an outage is answered 503 by the error handler, not as this API's own failure
      if (isDependencyOutage(error)) throw error
      log('update_privileges').error('api token privilege update failed', { error })
      return failResult(date, REASONS.internalServerError, 'internal_error')
    }
  }

  /**
   * The three counts are user-wide; only valid rows are listed; tokenList is omitted when empty.
   * A suspended token (its owner is banned) is not valid while the ban lasts: counted invalid, not listed.
   */
  async function getAllValidTokensList(userId: number): Promise<Result<AllValidTokensList>> {
    const at = stamp()
    const date = at.toISOString()
    try {
      const counts = await repo.countTokens(db, userId, at)
      const rows = await repo.listValidTokens(db, userId, at)
      const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null)
      const data: AllValidTokensList = { ...counts }
      if (rows.length > 0) {
        data.tokenList = rows.map((row) => ({
          id: row.id,
          name: row.name,
          created_at: iso(row.created_at)!,
          expires_at: iso(row.expires_at),
          restricted_to_ip_address: Array.isArray(row.restricted_to_ip_address) && row.restricted_to_ip_address.length ? row.restricted_to_ip_address : null,
          public_identifier: row.public_identifier,
          last_used: iso(row.last_used),
          usage_count: Number(row.usage_count),
          privilege_type: row.privilege_type,
        }))
      }
      return okResult(date, data)
    } catch (error) {
      // an outage is answered 503 by the error handler, not as this API's own failure
      if (isDependencyOutage(error)) throw error
      log('get_list_meta').error('api token listing failed', { error })
      return failResult(date, REASONS.serverError, 'internal_error')
    }
  }

  return {
    createApiKey, verifyApiKey, revokeApiKey, rotateApiKey, getUserApiKeysMetaData,
    updateRestriction, updatePrivileges, getAllValidTokensList,
  }
}

export type ApiTokenLibrary = ReturnType<typeof createApiTokenLibrary>
