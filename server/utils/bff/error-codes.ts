/**
 * The gateway's own failure codes: what its /api routes answer in `code` when the refusal is the
 * gateway's, not the IAM's (whose codes it relays as they come, iam/contract/error-codes.ts). Where
 * the meaning is the IAM's (`validation_failed`, `rate_limited`, `service_unavailable`, ...) the
 * gateway answers the IAM's code; these are the meanings only the gateway has. A page decides on
 * `code` alone (composables/useBff.ts), never on the sentence in `error` beside it. docs/errors.md
 * lists both vocabularies.
 */
import type { ErrorCode } from '../../../iam/contract/error-codes'

export const GATEWAY_ERROR_CODES = {
  csrf_refused: "The request did not come from this site's pages (another origin, or no X-CSRF header or form token)",
  signed_out: 'No session, or it ended: sign in again (`signedOut: true`; `ended` may say why)',
  service_failed: 'The sign-in service failed or answered something unreadable: try again',
  path_invalid: 'A path parameter is not valid (a dot segment, an encoded slash, ...)',
  client_ip_unknown: "The gateway could not determine the browser's address",
  already_impersonating: "This browser is signed in on someone's behalf already: end that first",
  api_not_found: 'No API of that name behind the proxy',
  path_not_allowed: 'The API proxy does not forward this path',
  scope_missing: 'The account lacks a permission the API requires (`required` lists them)',
  gateway_misconfigured: "The IAM issues no token for the API's audience",
  upstream_timeout: 'The API did not answer in time',
  upstream_unreachable: 'The API could not be reached',
} as const satisfies Record<string, string>

export type GatewayErrorCode = keyof typeof GATEWAY_ERROR_CODES

/** What a page reads in `code`: the IAM's codes the gateway relays, and the gateway's own. */
export type BffErrorCode = ErrorCode | GatewayErrorCode
