/**
 * The shape of the IAM's route table: every route declared once, with what the
 * platform needs to serve, check, document and call it. The request-rule middleware, each
 * handler's parsed input, the OpenAPI document, the gateway's allow-list and its typed client are
 * all derived from these entries; none keeps a second hand-written copy.
 *
 * Plain TypeScript and zod only (no h3, no Nitro): the gateway imports this folder too.
 */
import type { z } from 'zod'
import type { ErrorCode } from './error-codes'
import type { LimiterName } from './limiter-names'

/**
 * Why a gateway signed a request (iam/client/hmac.ts, version 3). Kept here as well as beside the
 * signer because the contract imports nothing but zod and itself; a unit test holds the two equal.
 */
export type CallerPurpose = 'bff' | 'provider' | 'oauth-callback' | 'sso' | 'scim'

/** What a route accepts when its entry names nothing: a person's action through the BFF. */
export const DEFAULT_PURPOSES: readonly CallerPurpose[] = ['bff']

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE'

/**
 * The credential presence checks that open the route's authentication chain (http/auth.ts:
 * requireAccessToken, requireRefreshToken). middleware/30 runs them before the body rule, so a request without
 * credentials is 401 whatever its body; verification, anomalies and the rest stay in the route.
 * - full: full authentication (requireAccessToken, requireRefreshToken, ... protectRoute)
 * - bearer+session: both present, not verified here (POST /auth/logout)
 * - session: requireRefreshToken (the refresh chain)
 * - none: no session
 */
export type AuthRule = 'full' | 'bearer+session' | 'session' | 'none'

/**
 * Checks right after full authentication, on facts it already read (iam/http/reauthenticate.ts):
 * `verified-email` refuses an account whose address was never confirmed (403 `verifyEmail: true`),
 * `recent-sign-in` a session that has not proved its sign-in recently (403 `reauthenticate: true`;
 * within security.adminReauthenticateWithinMs on a route that also has `platform-admin`),
 * `platform-admin` an account that is not a platform administrator (403, the same body on every
 * such route), `not-impersonated` a session a platform administrator opened on the account's
 * behalf (403 `impersonated: true`).
 */
export type RouteGuard = 'verified-email' | 'recent-sign-in' | 'platform-admin' | 'not-impersonated'

/**
 * The guards that an impersonated session never passes (403 `impersonated: true`, before any
 * other guard): `not-impersonated` names the sensitive routes that need no recent sign-in (the
 * password, the email, API token secrets, signing into other apps), and every route that asks
 * for a recent sign-in or a platform administrator is refused too, because the administrator
 * cannot prove the account owner's sign-in and must not use their own powers through it.
 */
const REFUSED_WHILE_IMPERSONATING: readonly RouteGuard[] = ['not-impersonated', 'recent-sign-in', 'platform-admin']

/** Whether a session opened by a platform administrator on the account's behalf is refused on `route`. */
export const refusedWhileImpersonating = (route: Pick<RouteContract, 'guards'>): boolean =>
  !!route.guards?.some((guard) => REFUSED_WHILE_IMPERSONATING.includes(guard))

/** What middleware/30 does with a JSON body whose strings fail lib/text.ts. */
export interface JsonTextRule {
  /** 'safe' (default): no control characters, no lone surrogates; 'storable': no NUL, no lone surrogates */
  text?: 'safe' | 'storable'
  /** the route's 400 shape: 'fields' (default) `{ ok: false, date, error, fields }`, 'reason' `{ ok: false, date, reason: "Bad Request" }` */
  invalid?: 'fields' | 'reason'
}

/** How the request itself is taken: its body's type, size and shape, or no body at all. */
export type RequestRule =
  /**
   * Content-Type application/json, non-empty, within limitBytes, a JSON object of acceptable text;
   * `tooLarge` is a sentence the 413 adds (`message`) where a person needs another way in
   */
  | ({ kind: 'json'; limitBytes: number; tooLarge?: string } & JsonTextRule)
  /** acceptCookieOnly: the session cookie is the only credential; no body, query string or Content-Type */
  | { kind: 'cookie-only' }
  /**
   * An image as the raw body (PUT /auth/picture): within the configured cap
   * (profilePicture.maxBytes; 413 `picture_too_large`), not compressed; the route refuses an empty
   * one (400 `picture_empty`) and decides the type from the bytes (iam/contract/profile-picture.ts)
   */
  | { kind: 'image' }
  /** no body is read; the route answers on its own terms */
  | { kind: 'none' }
  /** mounted before the JSON and cookie parsers (GET /api/public/verify): nothing is touched */
  | { kind: 'untouched' }

export interface ResponseContract {
  description: string
  /** the JSON body's schema; omitted when the body is not JSON or not worth a schema */
  body?: z.ZodType
  /**
   * the `code` values an answer of this status may carry (contract/error-codes.ts): every failure
   * status (400 and up, and the 202 of a pending MFA) declares them; the OpenAPI document lists
   * them and the test build refuses an answer whose code is not among them
   */
  codes?: readonly ErrorCode[]
}

export interface RouteContract {
  method: HttpMethod
  /** as the router matches it; segments starting with ':' match one non-empty segment */
  path: string
  /** one line for the OpenAPI document */
  summary: string
  auth: AuthRule
  /** run in this order after full authentication (auth 'full' only) */
  guards?: readonly RouteGuard[]
  /**
   * limiter names the route consumes (the limiter registry's names), in the order it consumes them;
   * `mailbox` holds back a mail to a capped address and never answers 429
   */
  limiters: readonly LimiterName[]
  request: RequestRule
  /** HMAC applies unless false (GET /health from loopback, /openapi.json) */
  hmac?: boolean
  /**
   * the signed purposes the route accepts (DEFAULT_PURPOSES unless named); any other is 401, so a
   * gateway signature made for one thing cannot reach a route meant for another
   */
  purposes?: readonly CallerPurpose[]
  /** the x-api-key header carries an API token (GET /api/public/verify); the route checks it */
  apiKey?: boolean
  params?: z.ZodType
  query?: z.ZodType
  body?: z.ZodType
  /** every documented status with its body */
  responses: Readonly<Record<number, ResponseContract>>
}

/** Keeps the literal types of a table (ids, methods, paths) while checking each entry's shape. */
export function defineRoutes<const T extends Record<string, RouteContract>>(routes: T): T {
  return routes
}

/** The JSON body limit, "1kb" as body-parser reads it: 1024 bytes (docs/errors.md, `payload_too_large`). */
export const JSON_LIMIT_BYTES = 1024
/** POST /auth/OAuth/:providerName carries a provider profile. */
export const OAUTH_JSON_LIMIT_BYTES = 4 * 1024

export const json = (limitBytes = JSON_LIMIT_BYTES, text: JsonTextRule = {}): RequestRule => ({ kind: 'json', limitBytes, ...text })
/** Management failures use the result envelope `{ ok: false, date, reason }`: a body it cannot take is `Bad Request`. */
export const manageJson = json(JSON_LIMIT_BYTES, { invalid: 'reason' })
export const cookieOnly: RequestRule = { kind: 'cookie-only' }
export const noBody: RequestRule = { kind: 'none' }
export const imageBody: RequestRule = { kind: 'image' }
export const untouched: RequestRule = { kind: 'untouched' }
