/**
 * verifyApiKey (docs/api-tokens.md). The success path is one SQL statement
 * (repository.countUses, batched per token by fast/count-batch.ts); only a failure takes a second query, to name the reason in this
 * order: Invalid key (absent, revoked, other privilege, suspended by its owner's ban), Invalid Host, Token expired.
 */
import type { ErrorCode } from '../../contract/error-codes'
import type { Kysely } from 'kysely'
import type { Database } from '../../db/schema'
import type { Logger } from '../../../shared/log'
import { emitSignal } from '../../lib/signals'
import { normalizeMappedIp } from '../../contract/ip-list'
import { countBatches } from '../../fast/count-batch'
import * as repo from './repository'
import { failResult, isPrivilege, okResult, REASONS, type Privilege, type Result, type VerifySuccess } from './results'
import { hashToken, isSha256Hex, parseRawToken } from './token-format'
import { isDependencyOutage } from '../../lib/outage'

export type VerifyDeps = { db: Kysely<Database>; log: Logger; now: () => number }

/**
 * Counts one verification of the token `conditions` match, batched with concurrent ones of the
 * same token under the same conditions (privilege, client IP): one UPDATE per batch (fast/count-batch.ts).
 */
export const countUseBatched = countBatches(repo.countUses, (c: repo.UseConditions) => `${c.hash}\n${c.privilege}\n${c.ip ?? ''}\n${c.bypassIp ? 1 : 0}`)

// The verifications of one counting batch share the batch's row and so its Date objects
// (fast/count-batch.ts): each date is formatted once per batch, not once per request.
const formatted = new WeakMap<Date, string>()
function iso(date: Date | null): string | null {
  if (!date) return null
  let text = formatted.get(date)
  if (text === undefined) formatted.set(date, (text = new Date(date).toISOString()))
  return text
}

export async function verifyApiKeyWith(
  deps: VerifyDeps,
  rawKey: string,
  skipCountUpdates: boolean,
  providedPrivilege: Privilege,
  byPassIpCheck: boolean,
  isInternalHash = false,
  ipAddress?: string,
): Promise<Result<VerifySuccess>> {
  const at = new Date(deps.now())
  const date = at.toISOString()
  // No token value in any log line: only the branch, the reason and the row id. The child logger
  // is made on the first line: a success writes none (a pino child costs microseconds per request).
  let logger: Logger | undefined
  const log = () => (logger ??= deps.log.child({ branch: 'api_tokens', type: 'verify' }))
  const fail = (reason: string, code: ErrorCode, fields: Record<string, unknown> = {}) => {
    log().info('api token verification failed', { reason, ...fields })
    emitSignal({ kind: 'tokenVerify', outcome: reason })
    return failResult(date, reason, code)
  }

  // Step 1: malformed input is rejected here and never reaches SQL.
  let hash: string
  if (isInternalHash) {
    if (typeof rawKey !== 'string' || rawKey.length === 0 || rawKey.length > 512) return fail(REASONS.invalidKey, 'api_key_invalid')
    hash = isSha256Hex(rawKey) ? rawKey : hashToken(rawKey)
  } else {
    if (!parseRawToken(rawKey)) return fail(REASONS.invalidKey, 'api_key_invalid', { malformed: true })
    hash = hashToken(rawKey) // step 2
  }
  if (!isPrivilege(providedPrivilege)) return fail(REASONS.invalidKey, 'api_key_invalid')
  const ip = typeof ipAddress === 'string' && ipAddress ? normalizeMappedIp(ipAddress) : null

  try {
    const row = skipCountUpdates
      ? await repo.verifyWithoutCount(deps.db, hash, providedPrivilege, at, ip, byPassIpCheck)
      : await countUseBatched(deps.db, { hash, privilege: providedPrivilege, at, ip, bypassIp: byPassIpCheck })
    if (row) {
      emitSignal({ kind: 'tokenVerify', outcome: 'ok' })
      return okResult(date, {
        name: row.name,
        tokenId: row.id,
        userId: row.user_id,
        createdAt: iso(row.created_at)!,
        expiresAt: iso(row.expires_at),
        lastUsed: iso(row.last_used),
        usageCount: Number(row.usage_count),
        providedPrivilege,
      })
    }
    // Failure: name the reason, checked in this order: unknown, revoked or another privilege (or
    // suspended, answered alike), then the IP allow-list, then expiry (codes in docs/errors.md).
    const found = await repo.findForDiagnosis(deps.db, hash)
    if (!found || found.valid !== 1 || found.privilege_type !== providedPrivilege) return fail(REASONS.invalidKey, 'api_key_invalid')
    // a suspended token (its owner is banned) answers exactly as a revoked one: the caller learns
    // nothing about the account, and nothing is written (the token comes back when the ban ends)
    if (repo.isSuspended(found, at)) return fail(REASONS.invalidKey, 'api_key_invalid', { userId: found.user_id, suspended: true })
    const list = found.restricted_to_ip_address
    if (!byPassIpCheck && Array.isArray(list) && list.length > 0 && (!ip || !list.includes(ip))) {
      log().warn('api token used from a host outside its allow-list', { userId: found.user_id, ipAddress: ip })
      return fail(REASONS.invalidHost, 'host_not_allowed', { userId: found.user_id })
    }
    if (found.expires_at && new Date(found.expires_at).getTime() <= at.getTime()) {
      await repo.invalidateIfExpired(deps.db, hash, at)
      return fail(REASONS.tokenExpired, 'token_expired', { userId: found.user_id })
    }
    // The row changed between the two statements (a concurrent update): refuse, never count twice.
    return fail(REASONS.invalidKey, 'api_key_invalid', { userId: found.user_id, raced: true })
  } catch (error) {
    // an outage is answered 503 by the error handler, not as this API's own failure
    if (isDependencyOutage(error)) throw error
    log().error('api token verification error', { error })
    return fail(REASONS.serverErrorValidating, 'internal_error')
  }
}
