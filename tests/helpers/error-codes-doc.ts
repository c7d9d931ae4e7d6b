/**
 * The tables of docs/errors.md, made from the vocabularies and the route table: each code, its
 * meaning and the routes (with statuses) that may answer it. tests/unit/error-codes-doc.test.ts
 * holds the document to them; `UPDATE_ERROR_DOCS=1` rewrites the tables in place.
 */
import type { RouteContract } from '../../iam/contract/define'
import { ERROR_CODES, type ErrorCode } from '../../iam/contract/error-codes'
import { documentedResponses, PLATFORM_RESPONSES } from '../../iam/contract/responses'
import { ROUTES } from '../../iam/contract/routes'
import { GATEWAY_ERROR_CODES } from '../../server/utils/bff/error-codes'

export const IAM_TABLE_MARKERS = ['<!-- iam-codes:start (made by tests/helpers/error-codes-doc.ts) -->', '<!-- iam-codes:end -->'] as const
export const GATEWAY_TABLE_MARKERS = ['<!-- gateway-codes:start (made by tests/helpers/error-codes-doc.ts) -->', '<!-- gateway-codes:end -->'] as const

const entries = Object.values(ROUTES) as RouteContract[]
const cell = (text: string) => text.replace(/\|/g, '\\|')

/** Where `code` is answered: the statuses per route. */
function answeredBy(code: ErrorCode): Map<RouteContract, number[]> {
  const out = new Map<RouteContract, number[]>()
  for (const route of entries) {
    const statuses = Object.entries(documentedResponses(route))
      .filter(([, response]) => response.codes?.includes(code))
      .map(([status]) => Number(status))
    if (statuses.length) out.set(route, statuses)
  }
  return out
}

/** The families of routes a row may name whole, in this order, instead of each member. */
const FAMILIES: ReadonlyArray<[string, (route: RouteContract) => boolean]> = [
  ['every signed-in route', (route) => route.auth === 'full'],
  ['every JSON route', (route) => route.request.kind === 'json'],
  ['every route with a rate limiter', (route) => route.limiters.some((name) => name !== 'mailbox')],
  ['every route of /admin', (route) => route.path.startsWith('/admin/')],
  ['every route of /api/manage', (route) => route.path.startsWith('/api/manage/')],
  ['every route of /orgs/:orgId', (route) => route.path.startsWith('/orgs/:orgId')],
]

/**
 * Names the routes that answer `code` the way a reader takes them in: a family that answers it
 * whole, with the statuses all its members share; then each other route, and a member of a family
 * with a status beyond the family's, with its own statuses.
 */
function routesIn(code: ErrorCode): string {
  const platform = Object.entries(PLATFORM_RESPONSES).filter(([, response]) => 'codes' in response && (response.codes as readonly string[]).includes(code))
  if (platform.length) return `every route (${platform.map(([status]) => status).join(', ')})`
  const by = answeredBy(code)
  const parts: string[] = []
  const left = new Map(by)
  for (const [name, member] of FAMILIES) {
    // judged on what earlier families left: a family inside one already named is not named again
    const all = entries.filter(member)
    if (all.length === 0 || !all.every((route) => left.has(route))) continue
    const shared = left.get(all[0]!)!.filter((status) => all.every((route) => left.get(route)!.includes(status)))
    if (shared.length === 0) continue
    parts.push(`${name} (${shared.join(', ')})`)
    for (const route of all) {
      const beyond = (left.get(route) ?? []).filter((status) => !shared.includes(status))
      if (beyond.length) left.set(route, beyond)
      else left.delete(route)
    }
  }
  const listed = [...left.entries()]
    .sort(([a], [b]) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method))
    .map(([route, statuses]) => `\`${route.method} ${route.path}\` ${statuses.join(', ')}`)
  return [...parts, ...listed].join('; ')
}

/** The IAM's codes: code, meaning, who answers it. */
export function iamCodesTable(): string {
  const rows = (Object.keys(ERROR_CODES) as ErrorCode[]).map((code) => `| \`${code}\` | ${cell(ERROR_CODES[code])} | ${cell(routesIn(code))} |`)
  return ['| code | meaning | answered by (status) |', '|---|---|---|', ...rows].join('\n')
}

/** The gateway's own codes: code and meaning. */
export function gatewayCodesTable(): string {
  const rows = Object.entries(GATEWAY_ERROR_CODES).map(([code, meaning]) => `| \`${code}\` | ${cell(meaning)} |`)
  return ['| code | meaning |', '|---|---|', ...rows].join('\n')
}

/** `doc` with the text between `markers` replaced by `table`; undefined when a marker is missing. */
export function withTable(doc: string, markers: readonly [string, string], table: string): string | undefined {
  const start = doc.indexOf(markers[0])
  const end = doc.indexOf(markers[1])
  if (start < 0 || end < start) return undefined
  return `${doc.slice(0, start + markers[0].length)}\n${table}\n${doc.slice(end)}`
}
