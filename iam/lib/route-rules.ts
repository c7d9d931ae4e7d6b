/**
 * Per-route request rules (IAM spec "Common request rules", "Limits"), one table that reads like
 * the spec. middleware/30.request-rules.ts applies them before any route runs, so routes never
 * see a body that is not a size-checked JSON object, and cookie-only routes never see a body,
 * query string or Content-Type.
 *
 * Every route of the spec is listed here up front; a new route needs no platform change unless
 * it is not in the spec.
 */

/** 1kb as the spec (and body-parser's "1kb") means it: 1024 bytes. */
export const JSON_LIMIT_BYTES = 1024
/** POST /auth/OAuth/:providerName carries a provider profile. */
export const OAUTH_JSON_LIMIT_BYTES = 4 * 1024

/** What middleware/30 does with a JSON body whose strings fail lib/text.ts. */
export interface JsonTextRule {
  /** 'safe' (default): no control characters, no lone surrogates; 'storable': no NUL, no lone surrogates */
  text?: 'safe' | 'storable'
  /** the route's 400 shape: 'fields' (default) `{ ok: false, date, error, fields }`, 'reason' `{ ok: false, date, reason: "Bad Request" }` */
  invalid?: 'fields' | 'reason'
}

export type BodyRule =
  /** Content-Type application/json, non-empty, within limitBytes, a JSON object of acceptable text */
  | ({ kind: 'json'; limitBytes: number } & JsonTextRule)
  /** acceptCookieOnly (spec Authentication 6): session cookie; no body, query string or Content-Type */
  | { kind: 'cookie-only' }
  /** no body is read; the route answers on its own terms */
  | { kind: 'none' }
  /** mounted before the JSON and cookie parsers (GET /api/public/verify): nothing is touched */
  | { kind: 'untouched' }

/**
 * The credential presence checks that open the route's authentication chain (spec
 * "Authentication" 2-3). middleware/30 runs them before the body rule, so a request without
 * credentials is 401 whatever its body; verification, anomalies and the rest stay in the route.
 * - full: full authentication (requireAccessToken, requireRefreshToken, ... protectRoute)
 * - bearer+session: both present, not verified here (POST /auth/logout)
 * - session: requireRefreshToken (the refresh chain)
 * - none (the default): no session
 */
export type AuthRule = 'full' | 'bearer+session' | 'session' | 'none'

export interface RouteRule {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'
  /** segments starting with ':' match one non-empty segment */
  path: string
  body: BodyRule
  /** omitted = 'none' */
  auth?: AuthRule
}

const json = (limitBytes = JSON_LIMIT_BYTES, text: JsonTextRule = {}): BodyRule => ({ kind: 'json', limitBytes, ...text })
// Management failures use the spec's envelope: a body it cannot take is `Bad Request`.
const manageJson = json(JSON_LIMIT_BYTES, { invalid: 'reason' })
const cookieOnly: BodyRule = { kind: 'cookie-only' }
const none: BodyRule = { kind: 'none' }

export const ROUTE_RULES: readonly RouteRule[] = [
  // Authentication routes
  { method: 'POST', path: '/signup', body: json() },
  { method: 'POST', path: '/login', body: json() },
  // A provider profile may carry fields we never read with newlines (OIDC address.formatted): only
  // unstorable text is refused here; the fields we read are checked in full by their schema.
  { method: 'POST', path: '/auth/OAuth/:providerName', body: json(OAUTH_JSON_LIMIT_BYTES, { text: 'storable' }) },
  { method: 'POST', path: '/auth/user/refresh-session', body: cookieOnly, auth: 'session' },
  { method: 'POST', path: '/auth/logout', body: cookieOnly, auth: 'bearer+session' },
  // MFA, email update and password reset
  { method: 'GET', path: '/auth/verify-mfa', body: none },
  { method: 'POST', path: '/auth/verify-mfa', body: json() },
  { method: 'POST', path: '/custom/mfa/:reason', body: json(), auth: 'full' },
  { method: 'GET', path: '/auth/verify-custom-mfa', body: none, auth: 'full' },
  { method: 'POST', path: '/auth/verify-custom-mfa', body: json(), auth: 'full' },
  { method: 'POST', path: '/update/email', body: json(), auth: 'full' },
  { method: 'POST', path: '/auth/forgot-password', body: json() },
  { method: 'GET', path: '/auth/reset-password', body: none },
  { method: 'POST', path: '/auth/reset-password', body: json() },
  // Issue 11 (4.3): email verification and undoing an email change; the link is the whole input
  { method: 'GET', path: '/auth/verify-email', body: none },
  { method: 'POST', path: '/auth/verify-email', body: none },
  { method: 'POST', path: '/auth/resend-verification', body: none, auth: 'full' },
  { method: 'GET', path: '/auth/undo-email-change', body: none },
  { method: 'POST', path: '/auth/undo-email-change', body: none },
  // Gateway authorization
  { method: 'GET', path: '/secret/data', body: none, auth: 'full' },
  { method: 'GET', path: '/secret/accesstoken/metadata', body: cookieOnly, auth: 'full' },
  // API tokens
  { method: 'GET', path: '/api/public/verify', body: { kind: 'untouched' } },
  { method: 'POST', path: '/api/manage/new-token', body: manageJson, auth: 'full' },
  { method: 'POST', path: '/api/manage/revoke', body: manageJson, auth: 'full' },
  { method: 'POST', path: '/api/manage/metadata', body: manageJson, auth: 'full' },
  { method: 'POST', path: '/api/manage/rotate', body: manageJson, auth: 'full' },
  { method: 'POST', path: '/api/manage/ip-restriction-update', body: manageJson, auth: 'full' },
  { method: 'POST', path: '/api/manage/privilege-update', body: manageJson, auth: 'full' },
  // issue 11, 4.4: every valid token of the user at once
  { method: 'POST', path: '/api/manage/revoke-all', body: manageJson, auth: 'full' },
  { method: 'GET', path: '/api/manage/list-metadata', body: none, auth: 'full' },
  // The spec answers POST list-metadata with 400 `Bad Request` from the controller, not 403/413.
  { method: 'POST', path: '/api/manage/list-metadata', body: none, auth: 'full' },
  // Standalone and DESIGN additions
  { method: 'GET', path: '/operational/config', body: none },
  { method: 'GET', path: '/health', body: none },
  { method: 'GET', path: '/check', body: none },
  { method: 'GET', path: '/.well-known/jwks.json', body: none },
]

// Rules added at boot for routes outside the spec that only some builds have (the test build's
// routes, iam/test-build): production bundles never contain them, so they cannot live above.
const addedRules: RouteRule[] = []

/** Adds rules for routes a build adds on top of the spec's; looked up after ROUTE_RULES. */
export function addRouteRules(rules: readonly RouteRule[]): void {
  addedRules.push(...rules)
}

/**
 * The path as the router matches it: the query dropped and one trailing slash removed (radix3's
 * non-strict trailing slash), so a rule can never be dodged by a spelling the router accepts.
 */
export function routePath(url: string): string {
  const q = url.indexOf('?')
  const path = q === -1 ? url : url.slice(0, q)
  return path.replace(/\/$/, '') || '/'
}

function matches(pattern: string, path: string): boolean {
  const want = pattern.split('/')
  const got = path.split('/')
  if (want.length !== got.length) return false
  return want.every((segment, i) => (segment.startsWith(':') ? got[i] !== '' : segment === got[i]))
}

/** The rule for a request, or undefined when the table has none (unknown route or method). */
export function findRouteRule(method: string, url: string): RouteRule | undefined {
  const m = method.toUpperCase() === 'HEAD' ? 'GET' : method.toUpperCase()
  const path = routePath(url)
  const match = (rule: RouteRule) => rule.method === m && matches(rule.path, path)
  return ROUTE_RULES.find(match) ?? addedRules.find(match)
}
