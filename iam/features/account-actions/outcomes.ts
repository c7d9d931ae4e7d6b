/**
 * The failure values of the link-driven account actions and the status each maps to. Routes
 * render them as `{ ok: false, date, error[, fields] }` (DESIGN 4, error bodies).
 */
import { LINK_ERRORS, type CodeCheck, type LinkFailure } from '../mfa/links'

export interface ActionFailure {
  ok: false
  status: 400 | 401 | 403 | 409 | 429 | 500 | 503
  error: string
  fields?: Record<string, string>
}

export const fail = (status: ActionFailure['status'], error: string, fields?: Record<string, string>): ActionFailure =>
  fields ? { ok: false, status, error, fields } : { ok: false, status, error }

/** A bad, expired, used or mismatched link is always 400 (spec: "400 body with error"). */
export const linkFailure = (reason: LinkFailure | 'previews'): ActionFailure => fail(400, LINK_ERRORS[reason])

/** A wrong or expired code is 401; a link that ran out of attempts or was used meanwhile, too. */
export function codeFailure(check: Exclude<CodeCheck, { ok: true }>): ActionFailure {
  if (check.reason === 'used') return fail(400, LINK_ERRORS.used)
  return fail(401, LINK_ERRORS[check.reason])
}

/** The request's device and network, recorded with every completed action. */
export interface Actor {
  visitorRowId: number | null
  ipAddress: string
  fingerprint: Record<string, unknown> | null
}
