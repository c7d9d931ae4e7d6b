/**
 * GET /api/public/verify, without HTTP: the spec's table and limiter rule 5 as a function from the
 * request's parts to an outcome the route renders.
 *
 * Order: (1) the general union limiter under `<IP>_verify`, only with
 * apiTokens.rateLimitOnSuccessfulRequest, before validation and never reset here; (2) a key already
 * blocked by the consumption limiter is refused before anything is consumed; (3) each failed
 * branch spends one consumption point (missing key: `<IP>_verify`; unresolved IP: the token;
 * invalid privilege: the token and `<IP>_verify`; failed verification: the token and the IP);
 * (4) success resets the consumption limiter for `<IP>_verify`, the token and the IP.
 */
import { isDependencyOutage } from '../../lib/outage'
import { containsXss } from '../../lib/xss'
import type { LimitDecision } from '../rate-limits/limiter'
import { limiterKeys } from './limiters'
import { failResult, isPrivilege, okResult, REASONS, type Fail, type Ok, type VerifySuccess } from './results'
import type { ApiTokenService } from './service'
import { MAX_RAW_TOKEN_LENGTH } from './token-format'

export type Rejection = Extract<LimitDecision, { ok: false }>
export type VerifyOutcome =
  | { kind: 'json'; status: number; body: Ok<VerifySuccess> | Fail | { banned: true } }
  | { kind: 'limited'; decision: Rejection }

export type VerifyRequest = {
  /** the x-api-key header as received (an array when repeated) */
  apiKey: string | string[] | undefined
  /** the resolved client IP; undefined when it could not be resolved */
  ip: string | undefined
  /** the privilege query value as received */
  privilege: unknown
}

/** A single printable header value of sane length; anything else is "no api key". */
function presentedKey(value: VerifyRequest['apiKey']): string | undefined {
  if (typeof value !== 'string') return undefined
  const key = value.trim()
  return key && key.length <= 4 * MAX_RAW_TOKEN_LENGTH && /^[\x21-\x7e]+$/.test(key) ? key : undefined
}

const PERMANENT: Rejection = { ok: false, retryMs: 0, permanent: true }

export async function verifyPublicRequest(service: ApiTokenService, req: VerifyRequest, now: () => number): Promise<VerifyOutcome> {
  const { consumption, union } = service.limiters
  const date = () => new Date(now()).toISOString()
  const fail = (status: number, reason: string): VerifyOutcome => ({ kind: 'json', status, body: failResult(date(), reason) })
  const ip = req.ip || undefined
  const key = presentedKey(req.apiKey)

  if (service.rateLimitOnSuccessfulRequest && ip) {
    const decision = await union.consume(limiterKeys.verify(ip))
    if (!decision.ok) return { kind: 'limited', decision }
  }
  const watched = [ip && limiterKeys.verify(ip), ip && limiterKeys.ip(ip), key && limiterKeys.token(key)].filter(
    (k): k is string => !!k,
  )
  for (const k of watched) if (await consumption.isBlocked(k)) return { kind: 'limited', decision: PERMANENT }

  /** Spends one point on each key; the first rejection wins. */
  const spend = async (...keys: Array<string | undefined>): Promise<Rejection | undefined> => {
    for (const k of keys) {
      if (!k) continue
      const decision = await consumption.consume(k)
      if (!decision.ok) return decision
    }
    return undefined
  }
  const failWithSpend = async (status: number, reason: string, ...keys: Array<string | undefined>): Promise<VerifyOutcome> => {
    const rejected = await spend(...keys)
    return rejected ? { kind: 'limited', decision: rejected } : fail(status, reason)
  }

  if (!key) return failWithSpend(401, 'No api key provided', ip && limiterKeys.verify(ip))
  const tokenKey = limiterKeys.token(key)
  if (!ip) return failWithSpend(400, REASONS.badRequest, tokenKey)
  if (containsXss(req.privilege)) return { kind: 'json', status: 403, body: { banned: true } }
  if (!isPrivilege(req.privilege)) return failWithSpend(400, REASONS.badRequest, tokenKey, limiterKeys.verify(ip))

  const verified = await service.library.verifyApiKey(key, false, req.privilege, false, false, ip)
  if (!verified.ok) {
    // DESIGN: a host outside the allow-list is told so; expired, revoked, unknown all read Invalid key
    const [status, reason] =
      verified.reason === REASONS.invalidHost ? [401, REASONS.invalidHost]
      : verified.reason === REASONS.serverErrorValidating ? [500, REASONS.serverErrorValidating]
      : [401, REASONS.invalidKey]
    return failWithSpend(status, reason, tokenKey, limiterKeys.ip(ip))
  }
  // The use is counted (committed): answer it. Clearing the failure counters is housekeeping; if
  // the store just went away they stay until they expire, rather than a counted use answered 503.
  await Promise.all([consumption.reset(limiterKeys.verify(ip)), consumption.reset(tokenKey), consumption.reset(limiterKeys.ip(ip))]).catch(
    (error: unknown) => {
      if (!isDependencyOutage(error)) throw error
    },
  )
  return { kind: 'json', status: 200, body: okResult(verified.date, verified.data) }
}
