/**
 * SCIM filters (RFC 7644 section 3.4.2.2): parsed by scim2-parse-filter, judged here. The
 * library's own tester compares strings exactly, but RFC 7643 section 2.2 makes a string attribute
 * case-insensitive unless its schema says `caseExact`: `userName eq "Bjensen@Example.com"` must
 * find bjensen@example.com. So the evaluation is ours: attribute names case-insensitive (RFC 7644
 * section 3.10), values case-insensitive but for the case-exact attributes (`id`, `externalId`,
 * members' `value`).
 *
 * Supported: eq, ne, co, sw, ew, pr, gt, ge, lt, le on strings, booleans and numbers, `and`, `or`,
 * `not`, and value paths `emails[type eq "work"]`. A filter that does not parse is a failure
 * value, never an exception, so the caller answers 400 `invalidFilter`.
 */
import { parse, type Filter } from 'scim2-parse-filter'

/** Attribute paths (lower case, dotted, schema URN removed) whose string values compare exactly. */
const CASE_EXACT = new Set(['id', 'externalid', 'members.value'])

/** The longest filter taken: a provider sends one or two comparisons; a longer one is abuse. */
export const MAX_FILTER_LENGTH = 1000

export type ParsedFilter = { ok: true; filter: Filter } | { ok: false; detail: string }

export function parseFilter(text: string): ParsedFilter {
  if (text.length > MAX_FILTER_LENGTH) return { ok: false, detail: `A filter is at most ${MAX_FILTER_LENGTH} characters` }
  try {
    return { ok: true, filter: parse(text) }
  } catch {
    return { ok: false, detail: 'The filter is not valid SCIM filter syntax (RFC 7644 section 3.4.2.2)' }
  }
}

/** `urn:...:User:name.givenName` and `name.givenName` alike: the attribute path without its schema. */
function pathSegments(attrPath: string): string[] {
  const colon = attrPath.lastIndexOf(':')
  return (colon === -1 ? attrPath : attrPath.slice(colon + 1)).split('.').map((s) => s.toLowerCase())
}

/** Every value at `segments` below `value`, multi-valued attributes flattened. */
function valuesAt(value: unknown, segments: readonly string[]): unknown[] {
  if (Array.isArray(value)) return value.flatMap((item) => valuesAt(item, segments))
  if (segments.length === 0) return value === undefined || value === null ? [] : [value]
  if (typeof value !== 'object' || value === null) return []
  const key = Object.keys(value).find((k) => k.toLowerCase() === segments[0])
  return key === undefined ? [] : valuesAt((value as Record<string, unknown>)[key], segments.slice(1))
}

type Comparable = string | number | boolean | null

function compare(op: string, actual: unknown, expected: Comparable, exact: boolean): boolean {
  if (typeof actual === 'string' && typeof expected === 'string') {
    const a = exact ? actual : actual.toLowerCase()
    const e = exact ? expected : expected.toLowerCase()
    switch (op) {
      case 'eq': return a === e
      case 'ne': return a !== e
      case 'co': return a.includes(e)
      case 'sw': return a.startsWith(e)
      case 'ew': return a.endsWith(e)
      case 'gt': return a > e
      case 'ge': return a >= e
      case 'lt': return a < e
      case 'le': return a <= e
    }
    return false
  }
  if (op === 'eq') return actual === expected
  if (op === 'ne') return actual !== expected
  if (typeof actual === 'number' && typeof expected === 'number') {
    return op === 'gt' ? actual > expected : op === 'ge' ? actual >= expected : op === 'lt' ? actual < expected : op === 'le' ? actual <= expected : false
  }
  return false
}

/** Whether `resource` (a SCIM resource as answered) matches `filter`; `prefix` is the value path's attribute. */
export function matchesFilter(resource: unknown, filter: Filter, prefix: readonly string[] = []): boolean {
  switch (filter.op) {
    case 'and':
      return filter.filters.every((f) => matchesFilter(resource, f, prefix))
    case 'or':
      return filter.filters.some((f) => matchesFilter(resource, f, prefix))
    case 'not':
      return !matchesFilter(resource, filter.filter, prefix)
    case '[]': {
      const segments = pathSegments(filter.attrPath)
      return valuesAt(resource, segments).some((item) => matchesFilter(item, filter.valFilter, [...prefix, ...segments]))
    }
    case 'pr':
      return valuesAt(resource, pathSegments(filter.attrPath)).length > 0
    default: {
      const segments = pathSegments(filter.attrPath)
      const exact = CASE_EXACT.has([...prefix, ...segments].join('.'))
      const values = valuesAt(resource, segments)
      // `ne` on an attribute with no value matches (RFC 7644 section 3.4.2.2: "not equal")
      if (values.length === 0) return filter.op === 'ne'
      if (filter.op === 'ne') return values.every((v) => compare('ne', v, filter.compValue, exact))
      return values.some((v) => compare(filter.op, v, filter.compValue, exact))
    }
  }
}

/**
 * RFC 7644 section 3.4.2.4: `startIndex` is 1-based (below 1 counts as 1), `count` non-negative
 * (below 0 counts as 0) and capped at `max`. Absent or not an integer: the defaults.
 */
export function pageOf(query: { startIndex?: string; count?: string }, max: number): { startIndex: number; count: number } {
  const int = (value: string | undefined) => (value !== undefined && /^-?\d{1,9}$/.test(value) ? Number(value) : undefined)
  const startIndex = Math.max(1, int(query.startIndex) ?? 1)
  const count = Math.min(max, Math.max(0, int(query.count) ?? max))
  return { startIndex, count }
}
