/**
 * Per-route request rules (JSON shape, body size, cookie-only routes), one table with a row per
 * route. middleware/30.request-rules.ts applies them before any route runs, so routes never
 * see a body that is not a size-checked JSON object, and cookie-only routes never see a body,
 * query string or Content-Type.
 *
 * The rules themselves are declared once per route in the route table (iam/contract/); this file
 * only matches a request to its rule.
 */
import type { AuthRule, CallerPurpose, RequestRule, RouteContract } from './define'
import { ROUTES, type RouteId } from './routes'

export { JSON_LIMIT_BYTES, OAUTH_JSON_LIMIT_BYTES, type AuthRule, type JsonTextRule } from './define'

export type BodyRule = RequestRule

export interface RouteRule {
  /** the route table entry's id (absent for the routes a build adds, iam/test-build) */
  id?: RouteId
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'
  /** segments starting with ':' match one non-empty segment */
  path: string
  body: BodyRule
  /** omitted = 'none' */
  auth?: AuthRule
  /** false: HMAC is not verified (the entry's `hmac: false`); omitted = verified */
  hmac?: boolean
  /** the signed purposes accepted (the entry's `purposes`); omitted = DEFAULT_PURPOSES */
  purposes?: readonly CallerPurpose[]
}

/** The request rules of every route, derived from the route table (iam/contract/routes.ts). */
export const ROUTE_RULES: readonly RouteRule[] = (Object.entries(ROUTES) as Array<[RouteId, RouteContract]>).map(([id, route]) => ({
  id,
  method: route.method,
  path: route.path,
  body: route.request,
  auth: route.auth,
  hmac: route.hmac,
  purposes: route.purposes,
}))

/** A rule with its path already split: matching a request splits only the request's path. */
interface CompiledRule {
  rule: RouteRule
  segments: readonly string[]
}

const compile = (rule: RouteRule): CompiledRule => ({ rule, segments: rule.path.split('/') })
const compiledRules: readonly CompiledRule[] = ROUTE_RULES.map(compile)

const staticKey = (method: string, path: string) => `${method} ${path}`

/**
 * Every request looks its rule up (middleware 10): most paths have no parameter, so those answer
 * from a map built at start instead of a scan of the table. A path a parameterised rule listed
 * before it would also match stays out of the map, so the answer is the scan's, first match wins.
 */
const shadowed = (entry: CompiledRule, i: number) =>
  compiledRules.slice(0, i).some((before) => before.rule.method === entry.rule.method && matches(before.segments, entry.segments))
const staticRules: ReadonlyMap<string, RouteRule> = new Map(
  compiledRules
    .filter((entry, i) => !entry.rule.path.includes('/:') && !shadowed(entry, i))
    .map((entry) => [staticKey(entry.rule.method, entry.rule.path), entry.rule]),
)

/**
 * What a path missing from the map can still match: the parameterised rules of its method and
 * segment count, in table order. A rule without parameters matches only its own path, and every
 * such rule is in the map unless a parameterised rule before it matches that path first, so this
 * answers what a scan of the whole table would.
 */
const shapeKey = (method: string, segments: number) => `${method} ${segments}`
const parameterisedRules: ReadonlyMap<string, readonly CompiledRule[]> = compiledRules
  .filter((entry) => entry.rule.path.includes('/:'))
  .reduce((byShape, entry) => {
    const key = shapeKey(entry.rule.method, entry.segments.length)
    byShape.set(key, [...(byShape.get(key) ?? []), entry])
    return byShape
  }, new Map<string, CompiledRule[]>())

// Rules added at boot for routes outside the route table that only some builds have (the test build's
// routes, iam/test-build): production bundles never contain them, so they cannot live above.
const addedRules: CompiledRule[] = []

/** Adds rules for routes a build adds on top of the route table's; looked up after ROUTE_RULES. */
export function addRouteRules(rules: readonly RouteRule[]): void {
  addedRules.push(...rules.map(compile))
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

function matches(want: readonly string[], got: readonly string[]): boolean {
  if (want.length !== got.length) return false
  return want.every((segment, i) => (segment.startsWith(':') ? got[i] !== '' : segment === got[i]))
}

/**
 * The rule for a request, or undefined when the table has none (unknown route or method). The
 * middleware look it up once per request (middleware 10 keeps it in `event.context.routeRule`).
 */
export function findRouteRule(method: string, url: string): RouteRule | undefined {
  const m = method.toUpperCase() === 'HEAD' ? 'GET' : method.toUpperCase()
  const path = routePath(url)
  const known = staticRules.get(staticKey(m, path))
  if (known) return known
  const got = path.split('/')
  const match = (entry: CompiledRule) => entry.rule.method === m && matches(entry.segments, got)
  return (parameterisedRules.get(shapeKey(m, got.length))?.find(match) ?? addedRules.find(match))?.rule
}
