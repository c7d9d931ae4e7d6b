/**
 * GET /api/public/verify, without HTTP: the verification's answers and its limiter order (below)
 * as a function from the request's parts to an outcome whose failure code the route's mapper
 * (http/api-token-outcomes.ts) turns into a status (docs/api-tokens.md).
 *
 * Order: (1) the general union limiter under `<IP>_verify`, only with
 * apiTokens.rateLimitOnSuccessfulRequest, before validation and never reset here; (2) a key already
 * blocked by the consumption limiter is refused before anything is consumed; (3) each failed
 * branch spends one consumption point (missing key: `<IP>_verify`; unresolved IP: the token;
 * invalid privilege: the token and `<IP>_verify`; failed verification: the token and the IP);
 * (4) success resets the consumption limiter for `<IP>_verify`, the token and the IP (those that
 * hold any state: the check of (2) reads which, in the same round trip).
 */
import { isDependencyOutage } from '../../lib/outage'
import { containsXss } from '../../lib/xss'
import type { LimitDecision } from '../rate-limits/limiter'
import { useLimiter } from '../rate-limits/registry'
import { isPrivilege, okResult, type Ok, type VerifySuccess } from './results'
import type { ApiTokenService } from './api-token-service'
import { MAX_RAW_TOKEN_LENGTH } from './token-format'

export type Rejection = Extract<LimitDecision, { ok: false }>

/** Why a verification failed; the route's mapper (http/api-token-outcomes.ts) picks status and body. */
export type VerifyFailureCode =
  | 'rate_limited'
  /** XSS in the privilege: answered `{ banned: true }` */
  | 'banned'
  | 'no_api_key'
  /** unresolved client IP or an unknown privilege */
  | 'bad_request'
  /** a client IP outside the token's allow-list */
  | 'invalid_host'
  /** unknown, expired, revoked or under-privileged */
  | 'invalid_key'
  | 'server_error'

export type VerifyOutcome =
  | { ok: true; result: Ok<VerifySuccess> }
  | { ok: false; code: 'rate_limited'; decision: Rejection }
  | { ok: false; code: 'banned' }
  | { ok: false; code: Exclude<VerifyFailureCode, 'rate_limited' | 'banned'>; date: string }

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
  const consumption = useLimiter(service.limiterDeps, 'consumptionRateLimiter')
  const ip = req.ip || undefined
  const key = presentedKey(req.apiKey)
  type ConsumptionFacts = Parameters<typeof consumption.consume>[0]
  const limited = (decision: Rejection): VerifyOutcome => ({ ok: false, code: 'rate_limited', decision })

  if (service.rateLimitOnSuccessfulRequest && ip) {
    const decision = await useLimiter(service.limiterDeps, 'generalUnionLimiter').consume({ ip, on: 'verify' })
    if (!decision.ok) return limited(decision)
  }
  const verifyFacts: ConsumptionFacts | undefined = ip ? { ip, on: 'verify' } : undefined
  const ipFacts: ConsumptionFacts | undefined = ip ? { ip } : undefined
  const tokenFacts: ConsumptionFacts | undefined = key ? { token: key } : undefined
  // one store round trip: blocked keys, and which keys hold failures a success would clear
  const present = [verifyFacts, ipFacts, tokenFacts].filter((facts): facts is ConsumptionFacts => !!facts)
  const state = await consumption.inspect(present)
  if (state.blocked) return limited(PERMANENT)

  /** Spends one point on each key; the first rejection wins, else the failure stands. */
  const failWithSpend = async (code: 'no_api_key' | 'bad_request' | 'invalid_host' | 'invalid_key' | 'server_error', ...spent: Array<ConsumptionFacts | undefined>): Promise<VerifyOutcome> => {
    for (const facts of spent) {
      if (!facts) continue
      const decision = await consumption.consume(facts)
      if (!decision.ok) return limited(decision)
    }
    return { ok: false, code, date: new Date(now()).toISOString() }
  }

  if (!key || !tokenFacts) return failWithSpend('no_api_key', verifyFacts)
  if (!ip) return failWithSpend('bad_request', tokenFacts)
  // one of the five privilege words holds no XSS: the scan (a walk with its own allocations) is
  // only for a value that is not one
  if (!isPrivilege(req.privilege)) {
    if (containsXss(req.privilege)) return { ok: false, code: 'banned' }
    return failWithSpend('bad_request', tokenFacts, verifyFacts)
  }

  const verified = await service.library.verifyApiKey(key, false, req.privilege, false, false, ip)
  if (!verified.ok) {
    // a host outside the allow-list is told so; expired, revoked, unknown all read Invalid key
    const code = verified.code === 'host_not_allowed' ? 'invalid_host' : verified.code === 'internal_error' ? 'server_error' : 'invalid_key'
    return failWithSpend(code, tokenFacts, ipFacts)
  }
  // The use is counted (committed): answer it. Clearing the failure counters is housekeeping; if
  // the store just went away they stay until they expire, rather than a counted use answered 503.
  // Keys that held nothing when inspected are not written: a failure spent on them since is
  // ordered after this success, as it would be had it arrived a moment later.
  if (state.dirty.length) {
    await consumption.resetAll(state.dirty).catch((error: unknown) => {
      if (!isDependencyOutage(error)) throw error
    })
  }
  return { ok: true, result: okResult(verified.date, verified.data) }
}
