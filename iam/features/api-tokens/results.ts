/**
 * The result envelope `{ ok, date, data | reason }`, the five privileges and every reason string
 * the token helpers answer with. Each failure also carries its code (contract/error-codes.ts,
 * docs/errors.md): callers switch on the code; the reason is a fixed text for people and logs.
 */
import { PRIVILEGES } from '../../contract/api-token-inputs'
import type { ErrorCode } from '../../contract/error-codes'
import type { Privilege } from '../../db/schema'

export type { Privilege }
export { PRIVILEGES }
// the route table's list (pure zod, no db types) must stay the stored column's values
PRIVILEGES satisfies readonly Privilege[]

export function isPrivilege(value: unknown): value is Privilege {
  return typeof value === 'string' && (PRIVILEGES as readonly string[]).includes(value)
}

export const REASONS = {
  invalidKey: 'Invalid key',
  invalidHost: 'Invalid Host',
  tokenExpired: 'Token expired',
  serverErrorValidating: 'Server error validating token.',
  cannotRotateRevoked: 'Cannot rotate revoked token',
  cannotRotateNow: 'Token cannot be rotated this time',
  serverErrorRotating: 'Server error rotating a token.',
  errorInvalidating: 'Error invalidating token',
  notFoundOrUnauthorized: 'Token not found or unauthorized',
  internalServerError: 'Internal server error',
  serverError: 'Server error',
  errorGettingMetadata: 'Error getting metadata',
  cantGetMetadata: 'Cant get metadata about invalid token',
  invalidIdentity: 'Invalid identity',
  badRequest: 'Bad Request',
  serverErrorManager: 'Server Error',
} as const

/**
 * Creation failures (texts of our own: no client depends on them). `serverErrorCreating` is the only one a
 * route answers with 500; the others are the caller's to fix (400).
 */
export const CREATION_REASONS = {
  invalidPrefix: 'Invalid prefix: 1-16 of [A-Za-z0-9-], no "_"',
  invalidPrivilege: 'Invalid privilege',
  invalidName: 'Invalid name',
  invalidExpiry: 'Invalid expiry: a positive number of milliseconds',
  invalidIpAddresses: 'Invalid IP address list: IPv4 addresses only',
  userNotFound: 'User not found',
  serverErrorCreating: 'Server error creating token',
  limitReached: (limit: number) => `You cannot have more than ${limit} valid tokens at a time`,
} as const

export type Ok<T> = { ok: true; date: string; data: T }
/** `reason` a fixed text, for people and logs; `code` what a program decides on (contract/error-codes.ts). */
export type Fail = { ok: false; date: string; reason: string; code: ErrorCode }
export type Result<T> = Ok<T> | Fail

export const okResult = <T>(date: string, data: T): Ok<T> => ({ ok: true, date, data })
export const failResult = (date: string, reason: string, code: ErrorCode): Fail => ({ ok: false, date, reason, code })

/** Token creation result. */
export type CreationSuccess = { rawApiKey: string; rawPublicId: string; expiresAt: string | null }

/** VerifySuccessResponse. */
export type VerifySuccess = {
  name: string
  tokenId: number
  userId: number
  createdAt: string
  expiresAt: string | null
  lastUsed: string | null
  usageCount: number
  providedPrivilege: Privilege
}

export type TokenCounts = { total: number; totalInvalidTokens: number; totalValidTokens: number }

/** SingleTokenMeta. */
export type SingleTokenMeta = { tokenMeta: VerifySuccess; counts: TokenCounts }

/** TokenList entry. */
export type TokenListEntry = {
  id: number
  name: string
  created_at: string
  expires_at: string | null
  restricted_to_ip_address: string[] | null
  public_identifier: string
  last_used: string | null
  usage_count: number
  privilege_type: Privilege
}

/** AllValidTokensList: tokenList is omitted when the user has no valid token. */
export type AllValidTokensList = TokenCounts & { tokenList?: TokenListEntry[] }

export type RevokeSuccess = { msg: 'Token invalided successfully'; invalidedTokenId: number; userId: number }
export type RotationSuccess = { msg: string; newRawToken: string; newExpiry: string | null }
export type MessageSuccess = { msg: string }

/** privateActionManager's action argument. */
export type ManagerAction =
  | { action: 'revoke' }
  | { action: 'rotate' }
  | { action: 'metadata' }
  | { action: 'ip-restriction-update'; newIpAddress: string[] | null }
  | { action: 'privilege-update'; newPrivileges: Privilege }

export type ManagerResult =
  | Result<RevokeSuccess | 'Token invalided successfully'>
  | Result<RotationSuccess>
  | Result<SingleTokenMeta>
  | Result<MessageSuccess>
