/** Small pure helpers of the API-token pages. */
import type { BffErrorCode } from '../server/utils/bff/error-codes'
import { describeFailure, type BffResult } from './useBff'
export const PRIVILEGES = ['demo', 'restricted', 'protected', 'full', 'custom'] as const

/** "1.2.3.4, 5.6.7.8" or one per line -> ['1.2.3.4', '5.6.7.8']. */
export function parseIpList(text: string): string[] {
  return text
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter(Boolean)
}

/** Dotted-quad IPv4, each part 0-255 without leading zeros. */
export function isIpv4(value: string): boolean {
  return /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/.test(value)
}

export interface TokenListEntry {
  id: number
  name: string
  created_at: string
  expires_at: string | null
  restricted_to_ip_address: string[] | null
  public_identifier: string
  last_used: string | null
  usage_count: number
  privilege_type: string
}

export type Privilege = (typeof PRIVILEGES)[number]

/** What a new token holds unless its creator picks another (the create form's first choice). */
export const DEFAULT_PRIVILEGE: Privilege = 'demo'

/**
 * One line per privilege. The IAM gives them no meaning of its own (docs/api-tokens.md): a token
 * verifies only with the exact privilege it holds, and the service that verifies decides what each
 * allows. The lines say that, with the convention the names suggest.
 */
export const PRIVILEGE_MEANINGS: Record<Privilege, string> = {
  demo: 'for trying things out: samples, sandboxes and demos where nothing real is at stake.',
  restricted: 'for narrow jobs, such as reading a report, that your service keeps to a few actions.',
  protected: 'for jobs that touch data worth guarding, which your service checks more closely.',
  full: 'for trusted services allowed everything your service offers to tokens.',
  custom: 'yours to define, when none of the four names above fits.',
}

/** The request a script sends to check a token: the gateway's public route on this site's origin. */
export function verifyCommand(origin: string, privilege: Privilege): string {
  return `curl -H "x-api-key: <token>" "${origin}/api/public/verify?privilege=${privilege}"`
}

/**
 * The token routes' failure codes (iam/contract/error-codes.ts) as sentences. The wire keeps its
 * fixed `reason` sentences for programs and logs; a person reads what happened, chosen by the code.
 * `api_key_invalid` covers a malformed, revoked, expired or wrong-privilege token alike, on purpose:
 * the IAM does not tell a caller which, so neither does the page.
 */
export const TOKEN_FAILURES: Readonly<Partial<Record<BffErrorCode, string>>> = {
  api_key_invalid: 'The token was not accepted: it is revoked or expired, or the privilege does not match.',
  host_not_allowed: 'The address this came from is not allowed to use the token.',
  token_expired: 'The token has expired.',
  api_key_missing: 'No token was sent: put it in the x-api-key header.',
  bad_request: 'The request was not understood: the privilege or the token details are wrong. Reload the page and try again.',
  token_identity_mismatch: 'The token details do not match this token. Reload the page and try again.',
  token_not_found: 'This token no longer exists or is not yours. Reload the page.',
  token_revoked: 'This token is revoked, so it cannot be rotated.',
  token_not_rotatable: 'The token cannot be rotated right now. Try again in a moment.',
  internal_error: 'The server could not complete the request. Try again.',
}

/** A token action's failure for a person: its code in words, else the shared banner text. */
export function describeTokenFailure(result: BffResult): string {
  const { code } = result.body
  const words = code !== undefined && Object.hasOwn(TOKEN_FAILURES, code) ? TOKEN_FAILURES[code] : undefined
  return words ?? describeFailure(result)
}
