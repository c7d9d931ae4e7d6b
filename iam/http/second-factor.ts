/** What the routes that take a second-factor code answer alike. */
import type { CodeLocked } from '../features/second-factors/code-budget'
import { retrySeconds } from '../features/rate-limits/limiter'
import { httpFail } from './respond'

export const INVALID_FACTOR_CODE = 'Invalid code'

/**
 * 429 for an account whose code entry is locked (features/second-factors/code-budget.ts): the
 * limiter body `{ error, code, retry }` and Retry-After (http/rate-limit.ts), and a sentence the pages can show as it is.
 */
export function failCodesLocked(locked: Pick<CodeLocked, 'retryMs'>): never {
  const retry = retrySeconds(locked.retryMs)
  const minutes = Math.ceil(retry / 60)
  return httpFail(
    429,
    { error: 'Too many requests', code: 'code_entry_locked', retry, message: `Too many wrong codes for this account. Code entry is locked; try again in ${minutes} minute${minutes === 1 ? '' : 's'}.` },
    { 'Retry-After': String(retry) },
  )
}
