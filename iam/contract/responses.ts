/**
 * The response bodies the IAM answers (the result envelope, failures with their code, the
 * authentication chain's answers; docs/errors.md) as zod
 * schemas, and the groups of statuses many routes share (the body rules of middleware/30, the
 * authentication chain, rate limits). Route entries merge them with their own statuses.
 */
import { z } from 'zod'
import { FIELD_ISSUE_CODES } from './field-issues'
import { refusedWhileImpersonating, type ResponseContract, type RouteContract } from './define'
import { errorCode, isErrorCode, type ErrorCode } from './error-codes'

const date = z.iso.datetime()

/**
 * A response body many routes share, named by its export name in zod's metadata (`.meta({ id })`,
 * zod's public way to mark a schema as a definition of its own): the OpenAPI document
 * (iam/lib/openapi.ts) then holds it once as a component the operations reference, instead of a
 * copy per response (about a tenth of the document's size). tests/unit/openapi.test.ts checks that
 * every schema exported here is named so.
 */
const shared = <T extends z.ZodType>(id: string, schema: T): T => schema.meta({ id })

/** `{ ok: true, date, data }` */
export const okData = <T extends z.ZodType>(data: T) => z.object({ ok: z.literal(true), date, data })
/** `{ ok: true, date }` (logout) */
export const okPlain = shared('okPlain', z.object({ ok: z.literal(true), date }))
/** The auth routes' failure: `{ ok: false, date, error, code, fields?, fieldIssues?, banned?, reason? }` (http/auth.ts authFail). */
export const errorFail = shared('errorFail', z.object({
  ok: z.literal(false),
  date,
  error: z.string(),
  code: errorCode,
  fields: z.record(z.string(), z.string()).optional(),
  /** with `validation_failed`: what was wrong with each field of `fields`, as a code (field-issues.ts) */
  fieldIssues: z.record(z.string(), z.object({ code: z.enum(FIELD_ISSUE_CODES), limit: z.number().optional() })).optional(),
  banned: z.literal(true).optional(),
  reason: z.string().optional(),
  /** with reason SESSION_REVOKED: why the session was revoked (`logout`, `password_changed`, `refresh_token_reused`, ...) */
  revokedFor: z.string().optional(),
}))
/**
 * A sign-in refused for the account's suspension (features/users/suspension.ts): its end (`until`,
 * ISO 8601; null: until an administrator lifts it) and the administrator's `reason` (null for a
 * ban given without one), so the person is told what happened and for how long.
 */
export const suspendedBody = shared('suspendedBody', errorFail.extend({ banned: z.literal(true), until: z.string().nullable(), reason: z.string().nullable() }))
/** The management routes' failure: `{ ok: false, date, reason, code }` */
export const reasonFail = shared('reasonFail', z.object({ ok: z.literal(false), date, reason: z.string(), code: errorCode }))
/** What middleware and platform failures carry: `{ error, code }` */
export const plainError = shared('plainError', z.object({ error: z.string(), code: errorCode }))
/** 429: `{ error: "Too many requests", code, retry }`, the same value in Retry-After */
export const tooManyBody = shared(
  'tooManyBody',
  z.object({ error: z.literal('Too many requests'), code: errorCode, retry: z.union([z.number().int().nonnegative(), z.literal('permanent')]) }),
)
/** 403 for XSS in free text: `{ banned: true, code }` */
export const bannedBody = shared('bannedBody', z.object({ banned: z.literal(true), code: errorCode }))
/** 202 while an anomaly waits for the emailed code (docs/anomalies.md) */
export const mfaPendingBody = shared('mfaPendingBody', z.object({ mfa: z.literal(true), message: z.string(), code: errorCode }))
/** 401 of a cached re-login anomaly (docs/anomalies.md) */
export const reloginBody = shared('reloginBody', z.object({ error: z.string(), message: z.string(), code: errorCode }))
/** Signup, login, OAuth, refresh, MFA: the new access token (the refresh token is the session cookie) */
export const tokensBody = shared('tokensBody', z.object({
  ok: z.literal(true),
  date,
  accessToken: z.string(),
  accessIat: z.number().int(),
  expiresInMs: z.number().int().positive(),
}))

/**
 * What a success that set a new password may add (http/respond.ts withWarnings): `breach_check_skipped`
 * when the breached-password service could not be reached and `breachCheck.failOpen` let it through.
 */
export const passwordWarnings = { warnings: z.array(z.enum(['breach_check_skipped'])).min(1).optional() }

export type Responses = Record<number, ResponseContract>

/** The codes a response (or a union of responses) declares, as a union of literals. */
export type CodesOf<R> = R extends { readonly codes?: readonly (infer C)[] } ? C : never

/** The response a group of `G` documents for `S`, over every group (a union). */
type AtStatus<G, S extends PropertyKey> = G extends { readonly [K in S]: infer R } ? R : never
type StatusesOf<G> = G extends object ? keyof G : never

/**
 * What responses() makes of `G`, at type level: each status any group documents, with the codes
 * of every group at that status, so an entry's type still says which codes it may answer
 * (RouteErrorCode, the gateway's typed client).
 */
export type Joined<G extends readonly Responses[]> = {
  [S in StatusesOf<G[number]> & number]: { description: string; body?: z.ZodType; codes?: readonly CodesOf<AtStatus<G[number], S>>[] }
}

/**
 * Joins response groups: a status two groups document gets both descriptions, either body and the
 * codes of both, so an entry states its own 400 and still inherits the body rules' 400.
 */
export function responses<const G extends readonly Responses[]>(...groups: G): Joined<G> {
  const out: Responses = {}
  for (const group of groups) {
    for (const [key, response] of Object.entries(group)) {
      const status = Number(key)
      const prior = out[status]
      if (!prior) {
        out[status] = response
        continue
      }
      const body = prior.body && response.body ? z.union([prior.body, response.body]) : (prior.body ?? response.body)
      const codes = [...new Set([...(prior.codes ?? []), ...(response.codes ?? [])])]
      out[status] = { description: `${prior.description}; ${response.description}`, ...(body ? { body } : {}), ...(codes.length ? { codes } : {}) }
    }
  }
  return out as Joined<G>
}

/** One documented failure: its description, body and codes (their literal types kept), in a line. */
export const failure = <const C extends readonly ErrorCode[]>(description: string, body: z.ZodType, ...codes: C): { description: string; body: z.ZodType; codes: C } => ({
  description,
  body,
  codes,
})

/** The sign-in routes' refusal of a suspended account (`suspendedBody`). */
export const SUSPENDED = {
  403: failure('Account suspended (`banned: true`): `until` (null: until lifted) and `reason` (null when none was given)', suspendedBody, 'account_banned'),
} satisfies Responses

/**
 * A password or email sign-in, sign-up or reset for an address whose domain requires its
 * organization's sign-in (iam/http/sso-required.ts): where to continue, as POST /sso/discover names it.
 */
export const SSO_REQUIRED = {
  403: failure(
    "The address's domain requires its organization's sign-in (`connectionId`, and `startUrl`, the gateway's SAML start); decided by the domain alone",
    errorFail.extend({ connectionId: z.string(), startUrl: z.string() }),
    'sso_required',
  ),
} satisfies Responses

/** middleware/30 on a JSON route whose failures are `{ ok: false, date, error, fields }` */
export const JSON_BODY_FIELDS = {
  400: failure('Malformed JSON, not an object, or unsafe text in a field', z.union([plainError, errorFail]), 'malformed_json', 'body_not_object', 'validation_failed'),
  403: failure('Content-Type is not application/json, or the body is empty', plainError, 'content_type_not_json', 'empty_body'),
  413: failure('Body over the size limit', plainError, 'payload_too_large'),
  415: failure('Content-Encoding other than identity', plainError, 'content_encoding_unsupported'),
} satisfies Responses

/** middleware/30 on a management JSON route: unsafe text is `{ ok: false, date, reason: "Bad Request" }` */
export const JSON_BODY_REASON = {
  ...JSON_BODY_FIELDS,
  400: failure('Malformed JSON, not an object, or unsafe text in a field', z.union([plainError, reasonFail]), 'malformed_json', 'body_not_object', 'bad_request'),
} satisfies Responses

/** middleware/30 on a cookie-only route (acceptCookieOnly) */
export const COOKIE_ONLY = {
  400: failure('A body, a query string or a Content-Type header', plainError, 'cookie_only'),
  401: failure('No session cookie (`Refresh token missing`)', errorFail, 'session_missing'),
} satisfies Responses

/**
 * What a session that can no longer be used answers (http/auth.ts failGuard, the refresh): the
 * general `relogin_required`, or the three causes a page words for the person.
 */
export const SESSION_ENDED_CODES = ['relogin_required', 'session_revoked', 'session_expired', 'refresh_token_reused'] as const satisfies readonly ErrorCode[]

/** The full authentication chain (requireAccessToken ... protectRoute) */
export const FULL_AUTH = {
  202: failure('An anomaly of this session waits for the emailed code', mfaPendingBody, 'mfa_required'),
  401: failure(
    'Missing or invalid Bearer token or session cookie, expired token, or re-login required',
    z.union([errorFail, reloginBody]),
    ...SESSION_ENDED_CODES,
    'access_token_missing',
    'access_token_expired',
    'access_token_invalid',
    'session_missing',
  ),
  403: failure('Banned device', errorFail, 'device_banned'),
  500: failure('The verification email of an anomaly could not be sent', errorFail, 'mail_failed'),
} satisfies Responses

/** A change to how the account signs in needs a recent sign-in proof (POST /auth/reauthenticate) */
export const REAUTH = {
  403: failure(
    'Re-authentication required (`reauthenticate: true`): prove the sign-in with POST /auth/reauthenticate, then repeat',
    errorFail.extend({ reauthenticate: z.literal(true) }),
    'reauthentication_required',
  ),
} satisfies Responses

/**
 * A session a platform administrator opened on the account's behalf, on a route the table closes
 * to it (contract/define.ts refusedWhileImpersonating): added to those routes' documents by the
 * OpenAPI generator, from the guards.
 */
export const IMPERSONATED = {
  403: failure(
    'Signed in on the account\'s behalf by a platform administrator (`impersonated: true`): not allowed until the impersonation ends',
    errorFail.extend({ impersonated: z.literal(true) }),
    'impersonated',
  ),
} satisfies Responses

/** Adding a way to sign in needs a confirmed address */
export const VERIFIED_EMAIL = {
  403: failure('The account address was never confirmed (`verifyEmail: true`)', errorFail.extend({ verifyEmail: z.literal(true) }), 'email_unverified'),
} satisfies Responses

/** A rate limiter refused the request */
export const LIMITED = {
  429: failure('Too many requests; Retry-After in seconds or `permanent`', tooManyBody, 'rate_limited'),
} satisfies Responses

/** The account's second-factor code entry is locked (iam/http/second-factor.ts failCodesLocked) */
export const CODES_LOCKED = {
  429: failure('Too many wrong codes for the account: code entry is locked (`message` says for how long)', tooManyBody.extend({ message: z.string() }), 'code_entry_locked'),
} satisfies Responses

/** The proof-of-work step (http/bot-check.ts) of sign-up, password reset and email sign-in */
export const BOT_CHECK = {
  400: failure(
    'No solved browser check (`bot_check_required`), or a forged, expired or used one (`bot_check_failed`, `botCheck`: invalid, expired, replayed)',
    errorFail.extend({ botCheck: z.enum(['missing', 'invalid', 'expired', 'replayed']) }),
    'bot_check_required',
    'bot_check_failed',
  ),
  503: failure('The bot check provider could not be asked (`botChallenge.provider: "turnstile"`): refused, never let through', errorFail, 'bot_check_unavailable'),
} satisfies Responses

/** XSS in free text: the device is banned */
export const XSS = {
  403: failure('Markup in free text: the device is banned', bannedBody, 'xss_rejected'),
} satisfies Responses

/** The device gate of the routes without a session (getFingerPrint): a banned device */
export const BANNED_DEVICE = {
  403: failure('Banned device', errorFail, 'device_banned'),
} satisfies Responses

/** A link in the query that fails its schema, or a link that is bad, used, expired or previewed too often */
export const LINK_CODES = ['link_invalid', 'link_mismatch', 'link_expired', 'link_used', 'link_previews_exhausted'] as const satisfies readonly ErrorCode[]
export const BAD_LINK = {
  400: failure('Invalid, used or expired link (`error`)', errorFail, ...LINK_CODES),
} satisfies Responses

/**
 * What every route may answer before or after its own code runs (not repeated in each entry): the
 * HMAC check (401 `{ reason }`, unless the entry says hmac: false), an unresolvable client IP (403
 * text `Forbidden`), and an unhandled error.
 */
export const PLATFORM_RESPONSES = {
  401: failure('HMAC signature missing, stale or wrong, or a purpose the route does not accept', z.object({ reason: z.string(), code: errorCode }), 'hmac_invalid', 'purpose_not_accepted'),
  403: { description: 'The client IP could not be resolved (text `Forbidden`)' },
  500: failure('Unhandled error (`requestId`)', plainError, 'internal_error'),
  503: failure('PostgreSQL or the shared store is unreachable; Retry-After set', plainError, 'service_unavailable'),
} satisfies Responses

/**
 * Everything an entry's route may answer: the platform's answers around it (the HMAC check only
 * where the entry has it), the entry's own, and the impersonation refusal where its guards close it
 * to an administrator's session (contract/define.ts refusedWhileImpersonating). The OpenAPI document
 * and the test build's check of answered codes read this one list.
 */
export function documentedResponses(route: RouteContract): Responses {
  const { 401: _hmacFailure, ...withoutHmac } = PLATFORM_RESPONSES
  return responses(route.hmac === false ? withoutHmac : PLATFORM_RESPONSES, route.responses, refusedWhileImpersonating(route) ? IMPERSONATED : {})
}

/** The codes `route` declares for `status` (documentedResponses). */
export function declaredCodes(route: RouteContract, status: number): readonly ErrorCode[] {
  return documentedResponses(route)[status]?.codes ?? []
}

/**
 * What is wrong with the `code` of an answer of `route` (undefined: nothing): a JSON failure
 * (status 400 and up) without a code, a code outside the vocabulary, or one the route does not
 * declare for that status. A code on a 2xx answer (the 202 of a pending MFA) must be declared too.
 * Any 5xx may carry `internal_error`: the final handler keeps a status a handler set above 415
 * (iam/error.ts). Without a route (a path outside the table) only the vocabulary is checked.
 * The test build applies it to every answer (iam/test-build/plugins/declared-codes.ts), the IAM
 * tests to the answers they read (tests/iam/documented.ts).
 */
export function codeProblem(route: RouteContract | undefined, status: number, body: unknown): string | undefined {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined
  const code: unknown = (body as { code?: unknown }).code
  if (code === undefined) return status >= 400 ? `a ${status} answer without a code` : undefined
  if (!isErrorCode(code)) return `a ${status} answer with the code ${JSON.stringify(code)}, which contract/error-codes.ts does not list`
  if (!route || (status >= 500 && code === 'internal_error')) return undefined
  if (!declaredCodes(route, status).includes(code)) return `a ${status} answer with the code ${code}, which ${route.method} ${route.path} does not declare for ${status}`
  return undefined
}

/** The codes the platform may answer around any route (PLATFORM_RESPONSES). */
type PlatformCode = CodesOf<(typeof PLATFORM_RESPONSES)[keyof typeof PLATFORM_RESPONSES]>
/** `impersonated` where the entry's guards close it to an administrator's session (define.ts refusedWhileImpersonating). */
type GuardCode<R> = R extends { readonly guards: readonly (infer G)[] } ? ([Extract<G, 'not-impersonated' | 'recent-sign-in' | 'platform-admin'>] extends [never] ? never : 'impersonated') : never

/**
 * Every code route `R` may answer, as a union of literals: its entry's, the platform's around it,
 * and the impersonation refusal its guards imply (documentedResponses at type level). The gateway
 * compares an answer's code against this type (server/utils/bff/iam-route.ts IamFailureCode), so a
 * code the route cannot answer, or a typo, fails the typecheck.
 */
export type RouteErrorCode<R extends RouteContract> = CodesOf<R['responses'][keyof R['responses']]> | PlatformCode | GuardCode<R>
