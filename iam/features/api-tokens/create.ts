/**
 * createApiKey and the creation step of rotation. The per-user limit of valid tokens holds under
 * concurrency: the creating transaction first takes the user's row lock (FOR NO KEY UPDATE, which
 * does not block foreign-key checks of other tables), then counts and inserts, so concurrent
 * creations of one user run one after another and the (limit+1)-th sees the limit reached.
 */
import type { ErrorCode } from '../../contract/error-codes'
import type { Kysely, Transaction } from 'kysely'
import type { Database } from '../../db/schema'
import { MAX_EXPIRES_MS, MAX_NAME_LENGTH } from '../../contract/api-token-inputs'
import { toStoredIpList } from '../../contract/ip-list'
import * as repo from './repository'
import { CREATION_REASONS, isPrivilege, type CreationSuccess, type Privilege } from './results'
import { DEFAULT_PREFIX, generatePublicIdentifier, generateRawToken, hashToken, isValidPrefix } from './token-format'


export type CreateInput = {
  userId: number
  privilegeType: Privilege
  name: string
  prefix?: string
  expires?: number | null
  ipAddresses?: readonly string[] | null
}

/** A refused creation: the reason's text and its code (contract/error-codes.ts). */
export type CreationRefusal = { reason: string; code: ErrorCode }

export type CreateOutcome = { ok: true; id: number; data: CreationSuccess } | ({ ok: false } & CreationRefusal)

const invalid = (reason: string): CreationRefusal => ({ reason, code: 'validation_failed' })

/** Checks the input; the prepared row (its suspension is the owner's, read under the lock) or the reason it is refused. */
function prepare(input: CreateInput, at: Date): CreationRefusal | { row: Omit<repo.NewTokenRow, 'suspendedUntil'>; rawApiKey: string } {
  const prefix = input.prefix ?? DEFAULT_PREFIX
  if (!isValidPrefix(prefix)) return invalid(CREATION_REASONS.invalidPrefix)
  if (!isPrivilege(input.privilegeType)) return invalid(CREATION_REASONS.invalidPrivilege)
  if (typeof input.name !== 'string' || input.name.trim().length === 0 || input.name.length > MAX_NAME_LENGTH) {
    return invalid(CREATION_REASONS.invalidName)
  }
  if (!Number.isSafeInteger(input.userId) || input.userId <= 0 || input.userId > 2_147_483_647) {
    return { reason: CREATION_REASONS.userNotFound, code: 'account_not_found' }
  }
  const { expires } = input
  if (expires !== undefined && expires !== null && !(Number.isFinite(expires) && expires > 0 && expires <= MAX_EXPIRES_MS)) {
    return invalid(CREATION_REASONS.invalidExpiry)
  }
  const ips = toStoredIpList(input.ipAddresses)
  if (ips === undefined) return invalid(CREATION_REASONS.invalidIpAddresses)
  const rawApiKey = generateRawToken(prefix)
  const row: Omit<repo.NewTokenRow, 'suspendedUntil'> = {
    userId: input.userId,
    name: input.name,
    prefix,
    hash: hashToken(rawApiKey),
    publicIdentifier: generatePublicIdentifier(),
    privilege: input.privilegeType,
    createdAt: at,
    expiresAt: expires ? new Date(at.getTime() + Math.floor(expires)) : null,
    ips,
  }
  return { row, rawApiKey }
}

/** Creates a token inside `trx` (the caller's transaction); refusals leave the transaction unchanged. */
export async function createInTransaction(
  trx: Transaction<Database>,
  input: CreateInput,
  at: Date,
  limitTokensPerUser: number,
): Promise<CreateOutcome> {
  const prepared = prepare(input, at)
  if ('reason' in prepared) return { ok: false, reason: prepared.reason, code: prepared.code }
  const owner = await repo.lockUser(trx, input.userId, at)
  if (!owner) return { ok: false, reason: CREATION_REASONS.userNotFound, code: 'account_not_found' }
  if ((await repo.countLiveTokens(trx, input.userId, at)) >= limitTokensPerUser) {
    return { ok: false, reason: CREATION_REASONS.limitReached(limitTokensPerUser), code: 'token_limit_reached' }
  }
  // a token made during a ban (a rotation through the library) is suspended with the others
  const id = await repo.insertToken(trx, { ...prepared.row, suspendedUntil: owner.bannedUntil })
  return {
    ok: true,
    id,
    data: {
      rawApiKey: prepared.rawApiKey,
      rawPublicId: prepared.row.publicIdentifier,
      expiresAt: prepared.row.expiresAt ? prepared.row.expiresAt.toISOString() : null,
    },
  }
}

/** Creates a token in its own transaction. */
export function createToken(db: Kysely<Database>, input: CreateInput, at: Date, limit: number): Promise<CreateOutcome> {
  return db.transaction().execute((trx) => createInTransaction(trx, input, at, limit))
}
