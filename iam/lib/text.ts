/**
 * What text the IAM accepts. PostgreSQL cannot store NUL in text or jsonb, and a lone UTF-16
 * surrogate (JSON.parse turns `"\ud800"` into one) has no UTF-8 form: either fails in the database,
 * which would be a 500. No field of ours has a use for control characters either (names, emails,
 * notes, token names, passwords: a tab or an escape in a password is a paste accident or an attack),
 * so one rule refuses all three everywhere: a 400 before any work, Argon2 included. Unicode
 * letters, marks, symbols and emoji stay allowed.
 */
// The request-side rule (isSafeText, safeString) is part of the contract, which the gateway shares.
import { isSafeText } from '../contract/text'

// What the database cannot store at all. The NUL is the point of the pattern.
// eslint-disable-next-line no-control-regex
const UNSTORABLE = /[\u0000\p{Cs}]/u

/** True when the database can store `value` (no NUL, no lone surrogate); control characters pass. */
export const isStorableText = (value: string): boolean => !UNSTORABLE.test(value)

/**
 * The first place in a parsed JSON value where a string (a value or a key) fails `accept`: the
 * top-level key it sits under ('' for a bare string or a rejected top-level key, which is not
 * worth echoing), or undefined when every string passes.
 */
export function findRejectedText(value: unknown, accept: (text: string) => boolean = isSafeText): string | undefined {
  const walk = (node: unknown): boolean => {
    if (typeof node === 'string') return accept(node)
    if (Array.isArray(node)) return node.every(walk)
    if (node && typeof node === 'object') return Object.entries(node).every(([key, child]) => accept(key) && walk(child))
    return true
  }
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    for (const [key, child] of Object.entries(value)) {
      if (!accept(key)) return ''
      if (!walk(child)) return key
    }
    return undefined
  }
  return walk(value) ? undefined : ''
}
