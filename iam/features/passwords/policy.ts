/**
 * Password policy: length within [minLength, maxLength] after NFKC normalisation,
 * counted in code points; no composition rules (NIST SP 800-63B §3.1.1.2); not the email address.
 * The breach check is separate (network).
 */
import { normalizePassword } from './hasher'

export type PolicyResult = { ok: true } | { ok: false; reason: string }

export function checkPasswordPolicy(password: string, email: string | null, policy: { minLength: number; maxLength: number }): PolicyResult {
  const normalized = normalizePassword(password)
  const length = [...normalized].length
  if (length < policy.minLength) return { ok: false, reason: `Password must be at least ${policy.minLength} characters` }
  if (length > policy.maxLength) return { ok: false, reason: `Password must be at most ${policy.maxLength} characters` }
  if (email && normalized.toLowerCase() === normalizePassword(email).toLowerCase()) {
    return { ok: false, reason: 'Password must not be your email address' }
  }
  return { ok: true }
}
