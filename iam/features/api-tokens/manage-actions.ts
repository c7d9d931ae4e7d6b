/**
 * The API token management controller, without HTTP: one function per management action, called
 * by the action's route unit (iam/routes/api/manage/) after the steps that come before it (full
 * authentication, the general union limiter keyed by the client IP, the markup and schema checks,
 * the action's operation limiter keyed `<IP>_<userId>`). Each answers an outcome whose failure code
 * the route's mapper (http/api-token-outcomes.ts) turns into its documented status.
 *
 * A success resets only the union limiter's two parts for the IP (a caller that succeeds is not
 * held back by its earlier failures; the operation limiter keeps counting); listing resets nothing and has no operation limiter.
 */
import type { z } from 'zod'
import type { ipRestrictionBody, newTokenBody, privilegeUpdateBody, tokenRefBody } from '../../contract/api-token-inputs'
import { useLimiter } from '../rate-limits/registry'
import type { Fail, ManagerAction, Ok } from './results'
import type { ApiTokenService, TokenEventInput } from './api-token-service'

/** Why an action did not succeed; the route's mapper (http/api-token-outcomes.ts) picks status and body. */
export type ManageFailureCode =
  /** token creation refused for the caller's input (`result` says why) */
  | 'creation_refused'
  /** the token helper refused the action on the named token (`result` says why) */
  | 'action_failed'
  /** the store failed (`result` says where) */
  | 'server_error'

export type ManageOutcome = { ok: true; result: Ok<unknown> } | { ok: false; code: ManageFailureCode; result: Fail }

/** Who asks: the signed-in user, from the client IP, on the session's device. */
export interface ManageCaller {
  userId: number
  ip: string
  visitorRowId: number | null
}

/** The actions on one named token: revoke, metadata, rotate, ip-restriction-update, privilege-update. */
export type TokenActionName = 'revoke' | 'metadata' | 'rotate' | 'ip-restriction-update' | 'privilege-update'

type TokenRef = z.infer<typeof tokenRefBody>

/** The body of each token action, as its route's schema parsed it. */
export type TokenActionBody = {
  revoke: TokenRef
  metadata: TokenRef
  rotate: TokenRef
  'ip-restriction-update': z.infer<typeof ipRestrictionBody>
  'privilege-update': z.infer<typeof privilegeUpdateBody>
}

const failed = (code: ManageFailureCode, result: Fail): ManageOutcome => ({ ok: false, code, result })

async function succeed(service: ApiTokenService, caller: ManageCaller, result: Ok<unknown>): Promise<ManageOutcome> {
  await useLimiter(service.limiterDeps, 'generalUnionLimiter').reset({ ip: caller.ip })
  return { ok: true, result }
}

const actorOf = (caller: ManageCaller) => ({ userId: caller.userId, ipAddress: caller.ip, visitorRowId: caller.visitorRowId })

/** POST /api/manage/new-token */
export async function createToken(service: ApiTokenService, caller: ManageCaller, body: z.infer<typeof newTokenBody>): Promise<ManageOutcome> {
  const created = await service.library.createApiKey(caller.userId, body.privilege, body.name, body.prefix ?? 'api', body.expires ?? undefined, body.ipv4)
  if (!created.ok) return failed(created.code === 'internal_error' ? 'server_error' : 'creation_refused', created)
  await service.recordEvent({ type: 'api_token_created', ...actorOf(caller), details: { name: body.name } })
  return succeed(service, caller, created)
}

/** POST /api/manage/revoke-all: every valid token of the user. */
export async function revokeAllTokens(service: ApiTokenService, caller: ManageCaller): Promise<ManageOutcome> {
  const result = await service.revokeAll({ userId: caller.userId, ipAddress: caller.ip, visitorRowId: caller.visitorRowId })
  return result.ok ? succeed(service, caller, result) : failed('server_error', result)
}

/** GET /api/manage/list-metadata: the user's valid tokens. */
export async function listTokens(service: ApiTokenService, userId: number): Promise<ManageOutcome> {
  const listed = await service.library.getAllValidTokensList(userId)
  return listed.ok ? { ok: true, result: listed } : failed('server_error', listed)
}

/** Token actions the audit log records (docs/api-tokens.md): created, rotated, revoked. */
const AUDITED_ACTIONS: Partial<Record<TokenActionName, TokenEventInput['type']>> = { rotate: 'api_token_rotated', revoke: 'api_token_revoked' }

/** The manager's action for a parsed body. */
function managerActionOf<A extends TokenActionName>(action: A, body: TokenActionBody[A]): { ref: TokenRef; action: ManagerAction } {
  if (action === 'ip-restriction-update') {
    const { ipv4, ...ref } = body as TokenActionBody['ip-restriction-update']
    // omitted or empty removes every restriction (stored as null)
    return { ref, action: { action, newIpAddress: ipv4?.length ? ipv4 : null } }
  }
  if (action === 'privilege-update') {
    const { newPrivilege, ...ref } = body as TokenActionBody['privilege-update']
    return { ref, action: { action, newPrivileges: newPrivilege } }
  }
  return { ref: body as TokenRef, action: { action: action as 'revoke' | 'metadata' | 'rotate' } }
}

/** POST /api/manage/{revoke,metadata,rotate,ip-restriction-update,privilege-update}: one named token of the user. */
export async function runTokenAction<A extends TokenActionName>(service: ApiTokenService, caller: ManageCaller, name: A, body: TokenActionBody[A]): Promise<ManageOutcome> {
  const { ref, action } = managerActionOf(name, body)
  const result = await service.library.privateActionManager(caller.userId, ref.tokenId, ref.publicIdentifier, ref.name, action)
  if (!result.ok) return failed('action_failed', result)
  const audited = AUDITED_ACTIONS[name]
  if (audited) await service.recordEvent({ type: audited, ...actorOf(caller), details: { name: ref.name, publicIdentifier: ref.publicIdentifier } })
  return succeed(service, caller, result)
}
