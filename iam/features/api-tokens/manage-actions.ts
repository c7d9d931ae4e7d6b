/**
 * The apiTokensController of the spec, without HTTP: after full authentication (the route's),
 * each action runs its limiters and validation in the spec's order and answers an outcome whose
 * failure code the route's mapper (http/api-token-outcomes.ts) turns into the spec's status.
 *
 * Per action: general union limiter (key: client IP; listing: `<IP>_list-metadata`), then XSS
 * (the device is banned) and schema (Bad Request), then the action's operation limiter (`<IP>_<userId>`),
 * then the helper. A success resets only the union limiter's two parts for the IP (rule 4);
 * listing resets nothing and has no operation limiter.
 */
import type { z } from 'zod'
import { containsXss } from '../../lib/xss'
import { useLimiter, type CountLimiterName } from '../rate-limits/registry'
import type { Rejection } from './public-verify'
import { CREATION_REASONS, failResult, REASONS, type Fail, type ManagerAction, type Ok } from './results'
import { ipRestrictionBody, newTokenBody, privilegeUpdateBody, revokeAllBody, tokenRefBody } from '../../contract/api-token-inputs'
import type { ApiTokenService, TokenEventInput } from './api-token-service'

export const MANAGE_POST_ACTIONS = [
  'new-token', 'revoke', 'metadata', 'rotate', 'ip-restriction-update', 'privilege-update', 'list-metadata',
  // beyond the spec's list: every valid token of the user, body `{ confirm: true }`
  'revoke-all',
] as const
export type ManageAction = (typeof MANAGE_POST_ACTIONS)[number]

export function isManageAction(value: unknown): value is ManageAction {
  return typeof value === 'string' && (MANAGE_POST_ACTIONS as readonly string[]).includes(value)
}

/** Why an action did not succeed; the route's mapper (http/api-token-outcomes.ts) picks status and body. */
export type ManageFailureCode =
  /** a limiter refused (`decision`) */
  | 'rate_limited'
  /** the body holds XSS: the route bans the device */
  | 'xss'
  /** wrong method or a body that fails the action's schema (`result` reads Bad Request) */
  | 'bad_request'
  /** token creation refused for the caller's input (`result` says why) */
  | 'creation_refused'
  /** the token helper refused the action on the named token (`result` says why) */
  | 'action_failed'
  /** the store failed (`result` says where) */
  | 'server_error'

export type ManageOutcome =
  | { ok: true; result: Ok<unknown> }
  | { ok: false; code: 'rate_limited'; decision: Rejection }
  | { ok: false; code: 'xss' }
  | { ok: false; code: Exclude<ManageFailureCode, 'rate_limited' | 'xss'>; result: Fail }

export type ManageRequest = { action: ManageAction; method: string; ip: string; userId: number; body: unknown; visitorRowId?: number | null }

/** The operation limiter of each token action (spec rule 3: keyed `<IP>_<userId>`). */
const OPERATION_LIMITER = {
  'new-token': 'newTokenCreationLimiter',
  revoke: 'revokeTokensLimiter',
  metadata: 'getMetadataTokenLimiter',
  rotate: 'rotationRateLimiter',
  'ip-restriction-update': 'ipRestrictionUpdate',
  'privilege-update': 'privilegeUpdate',
  'revoke-all': 'revokeAllLimiter',
} as const satisfies Record<Exclude<ManageAction, 'list-metadata'>, CountLimiterName>

export async function runManageAction(service: ApiTokenService, req: ManageRequest, now: () => number): Promise<ManageOutcome> {
  const { library } = service
  const union = useLimiter(service.limiterDeps, 'generalUnionLimiter')
  const badRequest = (): ManageOutcome => ({ ok: false, code: 'bad_request', result: failResult(new Date(now()).toISOString(), REASONS.badRequest) })
  const failed = (code: 'creation_refused' | 'action_failed' | 'server_error', result: Fail): ManageOutcome => ({ ok: false, code, result })

  if (req.action === 'list-metadata') {
    const decision = await union.consume({ ip: req.ip, on: 'list-metadata' })
    if (!decision.ok) return { ok: false, code: 'rate_limited', decision }
    if (req.method !== 'GET') return badRequest()
    const listed = await library.getAllValidTokensList(req.userId)
    return listed.ok ? { ok: true, result: listed } : failed('server_error', listed)
  }
  if (req.method !== 'POST') return badRequest()

  const unionDecision = await union.consume({ ip: req.ip })
  if (!unionDecision.ok) return { ok: false, code: 'rate_limited', decision: unionDecision }
  if (containsXss(req.body)) return { ok: false, code: 'xss' }

  const parse = <S extends z.ZodType>(schema: S): z.infer<S> | undefined => {
    const parsed = schema.safeParse(req.body)
    return parsed.success ? parsed.data : undefined
  }
  const operationGate = async (action: keyof typeof OPERATION_LIMITER): Promise<ManageOutcome | undefined> => {
    const decision = await useLimiter(service.limiterDeps, OPERATION_LIMITER[action]).consume({ ip: req.ip, userId: req.userId })
    return decision.ok ? undefined : { ok: false, code: 'rate_limited', decision }
  }
  const succeed = async (result: Ok<unknown>): Promise<ManageOutcome> => {
    await union.reset({ ip: req.ip })
    return { ok: true, result }
  }

  if (req.action === 'new-token') {
    const body = parse(newTokenBody)
    if (!body) return badRequest()
    const gated = await operationGate(req.action)
    if (gated) return gated
    const created = await library.createApiKey(req.userId, body.privilege, body.name, body.prefix ?? 'api', body.expires ?? undefined, body.ipv4)
    if (created.ok) {
      await service.recordEvent({ type: 'api_token_created', ...actorOf(req), details: { name: body.name } })
      return succeed(created)
    }
    return failed(created.reason === CREATION_REASONS.serverErrorCreating ? 'server_error' : 'creation_refused', created)
  }

  if (req.action === 'revoke-all') {
    if (!parse(revokeAllBody)) return badRequest()
    const gated = await operationGate(req.action)
    if (gated) return gated
    const result = await service.revokeAll({ userId: req.userId, ipAddress: req.ip, visitorRowId: req.visitorRowId ?? null })
    return result.ok ? succeed(result) : failed('server_error', result)
  }

  const target = tokenActionOf(req.action, req.body)
  if (!target) return badRequest()
  const { ref, action } = target
  const gated = await operationGate(req.action)
  if (gated) return gated
  const result = await library.privateActionManager(req.userId, ref.tokenId, ref.publicIdentifier, ref.name, action)
  if (!result.ok) return failed('action_failed', result)
  const audited = AUDITED_ACTIONS[req.action]
  if (audited) await service.recordEvent({ type: audited, ...actorOf(req), details: { name: ref.name, publicIdentifier: ref.publicIdentifier } })
  return succeed(result)
}

/** Token actions the audit log records: created, rotated, revoked. */
const AUDITED_ACTIONS: Partial<Record<ManageAction, TokenEventInput['type']>> = { rotate: 'api_token_rotated', revoke: 'api_token_revoked' }

const actorOf = (req: ManageRequest) => ({ userId: req.userId, ipAddress: req.ip, visitorRowId: req.visitorRowId ?? null })

type TokenRef = { tokenId: number; publicIdentifier: string; name: string }

/** The token reference and manager action of a body, or undefined on a schema mismatch. */
function tokenActionOf(action: Exclude<ManageAction, 'new-token' | 'list-metadata' | 'revoke-all'>, body: unknown): { ref: TokenRef; action: ManagerAction } | undefined {
  if (action === 'ip-restriction-update') {
    const parsed = ipRestrictionBody.safeParse(body)
    if (!parsed.success) return undefined
    const { ipv4, ...ref } = parsed.data
    // omitted or empty removes every restriction (stored as null)
    return { ref, action: { action, newIpAddress: ipv4?.length ? ipv4 : null } }
  }
  if (action === 'privilege-update') {
    const parsed = privilegeUpdateBody.safeParse(body)
    if (!parsed.success) return undefined
    const { newPrivilege, ...ref } = parsed.data
    return { ref, action: { action, newPrivileges: newPrivilege } }
  }
  const parsed = tokenRefBody.safeParse(body)
  return parsed.success ? { ref: parsed.data, action: { action } } : undefined
}
