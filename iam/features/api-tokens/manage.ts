/**
 * The apiTokensController of the spec, without HTTP: after full authentication (the route's),
 * each action runs its limiters and validation in the spec's order and maps the helper's result
 * to a status. The route renders the outcome.
 *
 * Per action: general union limiter (key: client IP; listing: `<IP>_list-metadata`), then XSS
 * (403 banned) and schema (400 Bad Request), then the action's operation limiter (`<IP>_<userId>`),
 * then the helper. A success resets only the union limiter's two parts for the IP (rule 4);
 * listing resets nothing and has no operation limiter.
 */
import type { z } from 'zod'
import { containsXss } from '../../lib/xss'
import { limiterKeys, type OperationAction } from './limiters'
import type { Rejection } from './public-verify'
import { CREATION_REASONS, failResult, REASONS, type ManagerAction, type Result } from './results'
import { ipRestrictionBody, newTokenBody, privilegeUpdateBody, revokeAllBody, tokenRefBody } from '../../contract/api-token-inputs'
import type { ApiTokenService } from './service'

export const MANAGE_POST_ACTIONS = [
  'new-token', 'revoke', 'metadata', 'rotate', 'ip-restriction-update', 'privilege-update', 'list-metadata',
  // issue 11, 4.4 (beyond the spec's list): every valid token of the user, body `{ confirm: true }`
  'revoke-all',
] as const
export type ManageAction = (typeof MANAGE_POST_ACTIONS)[number]

export function isManageAction(value: unknown): value is ManageAction {
  return typeof value === 'string' && (MANAGE_POST_ACTIONS as readonly string[]).includes(value)
}

export type ManageOutcome =
  | { kind: 'json'; status: number; body: unknown }
  | { kind: 'limited'; decision: Rejection }
  | { kind: 'xss' }

export type ManageRequest = { action: ManageAction; method: string; ip: string; userId: number; body: unknown; visitorRowId?: number | null }

/** Failure status per action (spec): revoke and metadata 401, the other token actions 400. */
const FAILURE_STATUS: Record<Exclude<OperationAction, 'new-token'>, number> = {
  revoke: 401,
  metadata: 401,
  rotate: 400,
  'ip-restriction-update': 400,
  'privilege-update': 400,
  'revoke-all': 500,
}

export async function runManageAction(service: ApiTokenService, req: ManageRequest, now: () => number): Promise<ManageOutcome> {
  const { union, operations } = service.limiters
  const { library } = service
  const badRequest = (): ManageOutcome => ({ kind: 'json', status: 400, body: failResult(new Date(now()).toISOString(), REASONS.badRequest) })
  const reply = (status: number, result: Result<unknown>): ManageOutcome => ({ kind: 'json', status, body: result })

  if (req.action === 'list-metadata') {
    const decision = await union.consume(limiterKeys.listing(req.ip))
    if (!decision.ok) return { kind: 'limited', decision }
    if (req.method !== 'GET') return badRequest()
    const listed = await library.getAllValidTokensList(req.userId)
    return reply(listed.ok ? 200 : 500, listed)
  }
  if (req.method !== 'POST') return badRequest()

  const unionDecision = await union.consume(limiterKeys.ip(req.ip))
  if (!unionDecision.ok) return { kind: 'limited', decision: unionDecision }
  if (containsXss(req.body)) return { kind: 'xss' }

  const parse = <S extends z.ZodType>(schema: S): z.infer<S> | undefined => {
    const parsed = schema.safeParse(req.body)
    return parsed.success ? parsed.data : undefined
  }
  const operationGate = async (): Promise<ManageOutcome | undefined> => {
    const decision = await operations[req.action as OperationAction].consume(limiterKeys.operation(req.ip, req.userId))
    return decision.ok ? undefined : { kind: 'limited', decision }
  }
  const succeed = async (status: number, result: Result<unknown>): Promise<ManageOutcome> => {
    await union.reset(limiterKeys.ip(req.ip))
    return reply(status, result)
  }

  if (req.action === 'new-token') {
    const body = parse(newTokenBody)
    if (!body) return badRequest()
    const gated = await operationGate()
    if (gated) return gated
    const created = await library.createApiKey(req.userId, body.privilege, body.name, body.prefix ?? 'api', body.expires ?? undefined, body.ipv4)
    if (created.ok) return succeed(201, created)
    return reply(created.reason === CREATION_REASONS.serverErrorCreating ? 500 : 400, created)
  }

  if (req.action === 'revoke-all') {
    if (!parse(revokeAllBody)) return badRequest()
    const gated = await operationGate()
    if (gated) return gated
    const result = await service.revokeAll({ userId: req.userId, ipAddress: req.ip, visitorRowId: req.visitorRowId ?? null })
    if (!result.ok) return reply(FAILURE_STATUS[req.action], result)
    return succeed(200, result)
  }

  const target = tokenActionOf(req.action, req.body)
  if (!target) return badRequest()
  const { ref, action } = target
  const gated = await operationGate()
  if (gated) return gated
  const result = await library.privateActionManager(req.userId, ref.tokenId, ref.publicIdentifier, ref.name, action)
  if (!result.ok) return reply(FAILURE_STATUS[req.action], result)
  return succeed(200, result)
}

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
