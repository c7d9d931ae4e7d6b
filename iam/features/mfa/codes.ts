/**
 * One-time codes, pure: 7 digits from the CSPRNG (crypto.randomInt is uniform, no modulo bias),
 * stored only as HMAC-SHA256 under `secrets.codes`. The MAC input binds the code to its link, user
 * and session, so a stolen table row cannot be replayed against another flow.
 */
import { createHmac, randomInt, timingSafeEqual } from 'node:crypto'

export const CODE_LENGTH = 7

export interface CodeBinding {
  linkJti: string
  userId: number
  familyId: string | null
}

export function generateCode(): string {
  return String(randomInt(0, 10 ** CODE_LENGTH)).padStart(CODE_LENGTH, '0')
}

export const isCodeShape = (value: string): boolean => /^\d{7}$/.test(value)

export function macCode(secret: string, code: string, binding: CodeBinding): string {
  return createHmac('sha256', secret)
    .update(`${binding.linkJti}\n${binding.userId}\n${binding.familyId ?? '-'}\n${code}`, 'utf8')
    .digest('hex')
}

/** Constant-time check of a submitted code against the stored MAC. */
export function codeMatches(secret: string, code: string, binding: CodeBinding, storedMac: string): boolean {
  const candidate = Buffer.from(macCode(secret, code, binding), 'hex')
  const stored = Buffer.from(storedMac, 'hex')
  return candidate.length === stored.length && timingSafeEqual(candidate, stored)
}
