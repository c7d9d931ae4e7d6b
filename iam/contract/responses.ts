/**
 * The response bodies the IAM answers (spec "Result envelope", "Errors", "Authentication") as zod
 * schemas, and the groups of statuses many routes share (the body rules of middleware/30, the
 * authentication chain, rate limits). Route entries merge them with their own statuses.
 */
import { z } from 'zod'
import type { ResponseContract } from './define'

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
/** The auth routes' failure: `{ ok: false, date, error, fields?, banned?, reason? }` (http/auth.ts authFail). */
export const errorFail = shared('errorFail', z.object({
  ok: z.literal(false),
  date,
  error: z.string(),
  fields: z.record(z.string(), z.string()).optional(),
  banned: z.literal(true).optional(),
  reason: z.string().optional(),
  /** with reason SESSION_REVOKED: why the session was revoked (`logout`, `password_changed`, `refresh_token_reused`, ...) */
  revokedFor: z.string().optional(),
}))
/** The management routes' failure: `{ ok: false, date, reason }` */
export const reasonFail = shared('reasonFail', z.object({ ok: z.literal(false), date, reason: z.string() }))
/** What middleware and platform failures carry: `{ error }` */
export const plainError = shared('plainError', z.object({ error: z.string() }))
/** 429: `{ error: "Too many requests", retry }`, the same value in Retry-After */
export const tooManyBody = shared('tooManyBody', z.object({ error: z.literal('Too many requests'), retry: z.union([z.number().int().nonnegative(), z.literal('permanent')]) }))
/** 403 for XSS in free text or a banned device */
export const bannedBody = shared('bannedBody', z.object({ banned: z.literal(true) }))
/** 202 while an anomaly waits for the emailed code (spec Authentication 4) */
export const mfaPendingBody = shared('mfaPendingBody', z.object({ mfa: z.literal(true), message: z.string() }))
/** 401 of a cached re-login anomaly (spec Authentication 4) */
export const reloginBody = shared('reloginBody', z.object({ error: z.string(), message: z.string() }))
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

/**
 * Joins response groups: a status two groups document gets both descriptions and either body, so
 * an entry states its own 400 and still inherits the body rules' 400.
 */
export function responses(...groups: Responses[]): Responses {
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
      out[status] = { description: `${prior.description}; ${response.description}`, ...(body ? { body } : {}) }
    }
  }
  return out
}

/** middleware/30 on a JSON route whose failures are `{ ok: false, date, error, fields }` */
export const JSON_BODY_FIELDS: Responses = {
  400: { description: 'Malformed JSON, not an object, or unsafe text in a field', body: z.union([plainError, errorFail]) },
  403: { description: 'Content-Type is not application/json, or the body is empty', body: plainError },
  413: { description: 'Body over the size limit', body: plainError },
  415: { description: 'Content-Encoding other than identity', body: plainError },
}

/** middleware/30 on a management JSON route: unsafe text is `{ ok: false, date, reason: "Bad Request" }` */
export const JSON_BODY_REASON: Responses = {
  ...JSON_BODY_FIELDS,
  400: { description: 'Malformed JSON, not an object, or unsafe text in a field', body: z.union([plainError, reasonFail]) },
}

/** middleware/30 on a cookie-only route (acceptCookieOnly) */
export const COOKIE_ONLY: Responses = {
  400: { description: 'A body, a query string or a Content-Type header', body: plainError },
  401: { description: 'No session cookie (`Refresh token missing`)', body: errorFail },
}

/** The full authentication chain (requireAccessToken ... protectRoute) */
export const FULL_AUTH: Responses = {
  202: { description: 'An anomaly of this session waits for the emailed code', body: mfaPendingBody },
  401: {
    description: 'Missing or invalid Bearer token or session cookie, expired token, or re-login required',
    body: z.union([errorFail, reloginBody]),
  },
  403: { description: 'Banned device', body: errorFail },
  500: { description: 'The verification email of an anomaly could not be sent', body: errorFail },
}

/** A change to how the account signs in needs a recent sign-in proof (POST /auth/reauthenticate) */
export const REAUTH: Responses = {
  403: {
    description: 'Re-authentication required (`reauthenticate: true`): prove the sign-in with POST /auth/reauthenticate, then repeat',
    body: errorFail.extend({ reauthenticate: z.literal(true) }),
  },
}

/**
 * A session a platform administrator opened on the account's behalf, on a route the table closes
 * to it (contract/define.ts refusedWhileImpersonating): added to those routes' documents by the
 * OpenAPI generator, from the guards.
 */
export const IMPERSONATED: Responses = {
  403: {
    description: 'Signed in on the account\'s behalf by a platform administrator (`impersonated: true`): not allowed until the impersonation ends',
    body: errorFail.extend({ impersonated: z.literal(true) }),
  },
}

/** Adding a way to sign in needs a confirmed address */
export const VERIFIED_EMAIL: Responses = {
  403: { description: 'The account address was never confirmed (`verifyEmail: true`)', body: errorFail.extend({ verifyEmail: z.literal(true) }) },
}

/** A rate limiter refused the request */
export const LIMITED: Responses = {
  429: { description: 'Too many requests; Retry-After in seconds or `permanent`', body: tooManyBody },
}

/** XSS in free text: the device is banned */
export const XSS: Responses = {
  403: { description: 'Markup in free text: the device is banned', body: bannedBody },
}

/**
 * What every route may answer before or after its own code runs (not repeated in each entry): the
 * HMAC check (401 `{ reason }`, unless the entry says hmac: false), an unresolvable client IP (403
 * text `Forbidden`), and an unhandled error.
 */
export const PLATFORM_RESPONSES: Responses = {
  401: { description: 'HMAC signature missing, stale or wrong', body: z.object({ reason: z.string() }) },
  403: { description: 'The client IP could not be resolved (text `Forbidden`)' },
  500: { description: 'Unhandled error', body: plainError },
}
