/** Small pure helpers of the API-token pages. */
import type { BffErrorCode } from '../server/utils/bff/error-codes'
import type { BffResult } from './useBff'
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
 * The catalogue key of one line per privilege. The IAM gives them no meaning of its own
 * (docs/api-tokens.md): a token verifies only with the exact privilege it holds, and the service
 * that verifies decides what each allows. The lines say that, with the convention the names suggest.
 * The names themselves are values a script sends, so they stay as they are in every language.
 */
export const PRIVILEGE_MEANINGS: Record<Privilege, string> = {
  demo: 'tokens.privileges.demo',
  restricted: 'tokens.privileges.restricted',
  protected: 'tokens.privileges.protected',
  full: 'tokens.privileges.full',
  custom: 'tokens.privileges.custom',
}

/** The request a script sends to check a token: the gateway's public route on this site's origin. */
export function verifyCommand(origin: string, privilege: Privilege): string {
  return `curl -H "x-api-key: <token>" "${origin}/api/public/verify?privilege=${privilege}"`
}

/**
 * The token routes' failure codes (iam/contract/error-codes.ts) and their catalogue keys. The wire
 * keeps its fixed `reason` sentences for programs and logs; a person reads what happened, chosen by
 * the code. `api_key_invalid` covers a malformed, revoked, expired or wrong-privilege token alike,
 * on purpose: the IAM does not tell a caller which, so neither does the page.
 */
export const TOKEN_FAILURES: Readonly<Partial<Record<BffErrorCode, string>>> = {
  api_key_invalid: 'tokens.failures.apiKeyInvalid',
  host_not_allowed: 'tokens.failures.hostNotAllowed',
  token_expired: 'tokens.failures.tokenExpired',
  api_key_missing: 'tokens.failures.apiKeyMissing',
  bad_request: 'tokens.failures.badRequest',
  token_identity_mismatch: 'tokens.failures.identityMismatch',
  token_not_found: 'tokens.failures.notFound',
  token_revoked: 'tokens.failures.revoked',
  token_not_rotatable: 'tokens.failures.notRotatable',
  internal_error: 'tokens.failures.internalError',
}

/**
 * A token action's failure for a person, in the page's language: its code in the token words, else
 * the shared sentence (`describeFailure` of useFailureWords).
 */
export function describeTokenFailure(result: BffResult, t: (key: string) => string, describeFailure: (result: BffResult) => string): string {
  const { code } = result.body
  const key = code !== undefined && Object.hasOwn(TOKEN_FAILURES, code) ? TOKEN_FAILURES[code] : undefined
  return key ? t(key) : describeFailure(result)
}
