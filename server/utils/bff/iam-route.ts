/**
 * An IAM call named by its route id: method and path come from the route table, and the types of
 * its params, query and body are the entry's schemas' input types (what the IAM accepts), so a BFF
 * route cannot send what the table does not describe. A part the entry has no schema for yet takes
 * a loose record.
 */
import type { z } from 'zod'
import type { HttpMethod } from '../../../iam/contract/define'
import { isErrorCode } from '../../../iam/contract/error-codes'
import { documentedResponses, type RouteErrorCode } from '../../../iam/contract/responses'
import { ROUTES } from '../../../iam/contract/routes'
import type { BffRouteId, ForwardedCookie } from './allow-list'

type Entry<I extends BffRouteId> = (typeof ROUTES)[I]
type SchemaOf<I extends BffRouteId, P extends string> = Entry<I> extends { [K in P]: infer S extends z.ZodType } ? S : undefined

/** What a client sends as `part` of route `I` (z.input of the entry's schema). */
export type IamInput<I extends BffRouteId, P extends 'params' | 'query' | 'body'> =
  SchemaOf<I, P> extends z.ZodType ? z.input<SchemaOf<I, P>> : P extends 'body' ? Record<string, unknown> : Record<string, string>

type ParamsPart<I extends BffRouteId> = Entry<I>['path'] extends `${string}:${string}` ? { params: IamInput<I, 'params'> } : { params?: never }

export type IamRouteInput<I extends BffRouteId> = ParamsPart<I> & {
  query?: IamInput<I, 'query'>
  body?: IamInput<I, 'body'>
  /** a raw body with its Content-Type (an image upload) instead of JSON */
  raw?: { contentType: string; bytes: Uint8Array }
  /** the browser cookies this call forwards */
  cookies?: ForwardedCookie[]
  /** send `Authorization: Bearer <access token>` */
  bearer?: string
  /** send `x-api-key` (public API token verification) */
  apiKey?: string
}

/** The request line of a call: the entry's method, its path with each `:param` filled in. */
export interface IamRouteCall {
  method: HttpMethod
  path: string
  query?: Record<string, string>
  body?: unknown
  raw?: { contentType: string; bytes: Uint8Array }
  cookies?: ForwardedCookie[]
  bearer?: string
  apiKey?: string
}

function stringRecord(value: unknown): Record<string, string> | undefined {
  if (!value || typeof value !== 'object') return undefined
  const out: Record<string, string> = {}
  for (const [key, item] of Object.entries(value)) if (item !== undefined && item !== null) out[key] = String(item)
  return out
}

/** `{ method, path, ... }` for route `id` with `input`; a missing path parameter is a programming error. */
export function iamRouteCall<I extends BffRouteId>(id: I, input: IamRouteInput<I>): IamRouteCall {
  const route = ROUTES[id]
  const params = stringRecord(input.params) ?? {}
  const path = route.path.replace(/:([A-Za-z0-9_]+)/g, (_, name: string) => {
    const value = params[name]
    if (value === undefined) throw new Error(`BFF: IAM route ${id} needs the path parameter ${name}`)
    return encodeURIComponent(value)
  })
  const { params: _params, query, ...rest } = input
  return { ...rest, method: route.method, path, query: stringRecord(query) }
}

/**
 * The failure codes route `I` may answer (its table entry's, and the platform's around it), as a
 * union of literals (for a union of routes, any of theirs): a BFF route that compares an IAM
 * answer's code with one the route cannot answer, or with a misspelt one, fails the typecheck
 * (iam/contract/error-codes.ts).
 */
export type IamFailureCode<I extends BffRouteId> = I extends BffRouteId ? RouteErrorCode<Entry<I>> : never

const declaredByRoute = new Map<BffRouteId, ReadonlySet<string>>()
const declaredOf = (id: BffRouteId): ReadonlySet<string> => {
  let codes = declaredByRoute.get(id)
  if (!codes) {
    codes = new Set(Object.values(documentedResponses(ROUTES[id])).flatMap((response) => response.codes ?? []))
    declaredByRoute.set(id, codes)
  }
  return codes
}

/**
 * The `code` of an IAM answer of route `id`: one the route declares, typed as such; undefined for a
 * success, a body without one, or a code the route does not declare (never taken on trust).
 */
export function iamFailureCode<I extends BffRouteId>(id: I, body: unknown): IamFailureCode<I> | undefined {
  const code: unknown = body && typeof body === 'object' ? (body as { code?: unknown }).code : undefined
  return isErrorCode(code) && declaredOf(id).has(code) ? (code as IamFailureCode<I>) : undefined
}
