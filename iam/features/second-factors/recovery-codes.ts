/**
 * Recovery codes: 10 per enrolment, each 16 characters of a 32-symbol alphabet (80 bits from
 * crypto.getRandomValues), shown once as `xxxx-xxxx-xxxx-xxxx`. Only a SHA-256 of the normalised code
 * is stored: with 80 bits of entropy a stolen table cannot be brute-forced, so a slow password
 * hash would add cost and nothing else, and a plain digest lets one indexed, conditional UPDATE
 * find and spend a code atomically. The lookup compares digests, whose timing tells an attacker
 * nothing about a code they do not already hold.
 */
import { createHash } from 'node:crypto'

export const RECOVERY_CODE_COUNT = 10
// Crockford's base32 without I, L, O, U: nothing to misread when typed from paper
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ'
const LENGTH = 16

function newRecoveryCode(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(LENGTH))
  // 256 is a multiple of 32: masking to 5 bits keeps each symbol uniform
  const chars = Array.from(bytes, (b) => ALPHABET[b & 31]).join('')
  return chars.match(/.{4}/g)!.join('-')
}

export const newRecoveryCodes = (): string[] => Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode)

/** Upper case, separators and spaces dropped; null when it cannot be a recovery code. */
export function normalizeRecoveryCode(input: string): string | null {
  const code = input.toUpperCase().replace(/[\s-]/g, '')
  return code.length === LENGTH && [...code].every((c) => ALPHABET.includes(c)) ? code : null
}

export const hashRecoveryCode = (normalized: string): string => createHash('sha256').update(`recovery:${normalized}`, 'utf8').digest('hex')
