/**
 * Rate-limit rejections over HTTP (docs/errors.md, `rate_limited`): 429
 * `{ error: "Too many requests", retry }` with `Retry-After` carrying the same value, a number of
 * seconds or `permanent`.
 */
import type { LimitDecision } from '../features/rate-limits/limiter'
import { retrySeconds } from '../features/rate-limits/limiter'
import { useLimiter, type CountLimiterName, type KeyFacts, type LimiterDeps } from '../features/rate-limits/registry'
import { httpFail } from './respond'

/** The 429 body and header value of a rejection. */
export function tooManyRequestsBody(decision: Extract<LimitDecision, { ok: false }>): {
  error: 'Too many requests'
  code: 'rate_limited'
  retry: number | 'permanent'
} {
  return { error: 'Too many requests', code: 'rate_limited', retry: decision.permanent ? 'permanent' : retrySeconds(decision.retryMs) }
}

/** Ends the request with 429 `{ error: "Too many requests", code, retry }` and a matching `Retry-After` for a rejected decision. */
export function throwTooManyRequests(decision: Extract<LimitDecision, { ok: false }>): never {
  const body = tooManyRequestsBody(decision)
  return httpFail(429, body, { 'Retry-After': String(body.retry) })
}

/** Consumes one point of the registry's limiter `name` for the facts' key; on rejection ends the request with 429. */
export async function enforceRateLimit<N extends CountLimiterName>(deps: LimiterDeps, name: N, facts: KeyFacts<N>): Promise<void> {
  const decision = await useLimiter(deps, name).consume(facts)
  if (!decision.ok) throwTooManyRequests(decision)
}
