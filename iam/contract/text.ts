/**
 * What text the IAM accepts in a request (iam/lib/text.ts says why): every string schema of the
 * contract starts from safeString. It lives in the contract because the contract is the layer
 * both apps import, and it may import nothing but zod.
 */
import { z } from 'zod'

// \p{Cc}: C0 (U+0000-U+001F), DEL and C1 (U+0080-U+009F). With the u flag \p{Cs} matches only a
// surrogate that is not half of a pair, i.e. ill-formed UTF-16.
const UNSAFE = /[\p{Cc}\p{Cs}]/u

export const UNSAFE_TEXT_MESSAGE = 'Control characters and invalid Unicode are not allowed'

/** True when `value` has no control character and is well-formed UTF-16. */
export const isSafeText = (value: string): boolean => !UNSAFE.test(value)

/**
 * `z.string(params)` refusing unsafe text (see isSafeText). Every string schema of the IAM starts
 * here; it runs before trimming and the other checks, so they see only safe text.
 */
export function safeString(params?: Parameters<typeof z.string>[0]) {
  return z.string(params).refine(isSafeText, UNSAFE_TEXT_MESSAGE)
}
