/**
 * The HTTP side of the API token outcomes (docs/api-tokens.md, docs/errors.md): one mapper per
 * route family from a feature's failure code to the status and body the route's contract entry
 * documents. Features never name a status.
 */
import { setResponseStatus, type H3Event } from 'h3'
import type { ErrorCode } from '../contract/error-codes'
import type { ManageOutcome } from '../features/api-tokens/manage-actions'
import type { VerifyFailureCode, VerifyOutcome } from '../features/api-tokens/public-verify'
import { failResult, REASONS } from '../features/api-tokens/results'
import { throwTooManyRequests } from './rate-limit'
import { httpFail } from './respond'

/** The management actions, as their routes name them. */
export type ManageActionName = 'new-token' | 'revoke' | 'metadata' | 'rotate' | 'ip-restriction-update' | 'privilege-update' | 'revoke-all' | 'list-metadata'

/** `/api/manage/*`: 201 for a created token, 200 for the rest; failures by code (and action). */
export function renderManageOutcome(event: H3Event, action: ManageActionName, outcome: ManageOutcome): unknown {
  if (outcome.ok) return reply(event, action === 'new-token' ? 201 : 200, outcome.result)
  switch (outcome.code) {
    case 'creation_refused':
      return reply(event, 400, outcome.result)
    // a refused revoke or metadata is 401, a refused rotate or update 400 (the routes' contract entries)
    case 'action_failed':
      return reply(event, action === 'revoke' || action === 'metadata' ? 401 : 400, outcome.result)
    case 'server_error':
      return reply(event, 500, outcome.result)
  }
}

/** POST /api/manage/list-metadata: the listing is GET; a POST is answered by the controller with 400 `Bad Request` (docs/errors.md, `bad_request`). */
export function renderWrongMethod(event: H3Event, date: string): unknown {
  return reply(event, 400, failResult(date, REASONS.badRequest, 'bad_request'))
}

/** Management answers its envelope as a normal response, failures included. */
function reply(event: H3Event, status: number, body: unknown): unknown {
  setResponseStatus(event, status)
  return body
}

const VERIFY_FAILURES = {
  no_api_key: [401, 'No api key provided', 'api_key_missing'],
  bad_request: [400, REASONS.badRequest, 'bad_request'],
  invalid_host: [401, REASONS.invalidHost, 'host_not_allowed'],
  invalid_key: [401, REASONS.invalidKey, 'api_key_invalid'],
  server_error: [500, REASONS.serverErrorValidating, 'internal_error'],
} as const satisfies Record<Exclude<VerifyFailureCode, 'rate_limited' | 'banned'>, readonly [number, string, ErrorCode]>

/** GET /api/public/verify: 200 with the token's data, else the status and reason of VERIFY_FAILURES (docs/api-tokens.md). */
export function renderVerifyOutcome(event: H3Event, outcome: VerifyOutcome): unknown {
  if (outcome.ok) return reply(event, 200, outcome.result)
  if (outcome.code === 'rate_limited') return throwTooManyRequests(outcome.decision)
  if (outcome.code === 'banned') return httpFail(403, { banned: true, code: 'xss_rejected' })
  const [status, reason, code] = VERIFY_FAILURES[outcome.code]
  return httpFail(status, failResult(outcome.date, reason, code))
}
