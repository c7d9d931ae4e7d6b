/**
 * Reading what the browser sent: JSON (pages with JavaScript) or a urlencoded form (no-JS pages),
 * checked by a zod schema so only known fields, of bounded size, ever reach the IAM. The IAM
 * validates the content itself; this is shape only. Bodies arrive here buffered and bounded
 * (BFF_BODY_LIMIT_BYTES, middleware/15.body-limit.ts): readBody never reads the socket itself.
 */
import { getQuery, getRouterParams, readBody, type H3Event } from 'h3'
import { z } from 'zod'
import type { RouteContract } from '../../../iam/contract/define'
import { ROUTES } from '../../../iam/contract/routes'
import type { BffRouteId } from './allow-list'
import { isFormPost } from './forms'
import type { IamInput } from './iam-route'
import { refusedFields } from '../../../iam/contract/field-issues'
import { bffFail, bffRedirect } from './respond'

/**
 * A same-origin redirect answer for no-JS forms: 303 to `path`, optional error code in the query,
 * and for a rate limit the wait in seconds (`retry`), so the page can say when to try again.
 */
export function formReply(path: string, code?: string, retry?: number): never {
  const query = code ? `error=${encodeURIComponent(code)}${code === 'rate_limited' && retry !== undefined ? `&retry=${retry}` : ''}` : ''
  const location = query ? `${path}${path.includes('?') ? '&' : '?'}${query}` : path
  bffRedirect(location, code === undefined)
}

/**
 * The `?error=` code of a refused no-JS post: the status's, except the IAM's proof-of-work refusal,
 * which a page without JavaScript cannot solve (the page says to turn JavaScript on).
 */
export function formErrorCodeOf(res: { status: number; body: unknown }): string {
  return isBotCheckRefusal(res) ? 'bot_check_needs_js' : formErrorCode(res.status)
}

/** Whether the IAM refused for want of a solved proof-of-work check (`bot_check_required` / `bot_check_failed`). */
export function isBotCheckRefusal(res: { body: unknown }): boolean {
  const code = (res.body as { code?: unknown } | null)?.code
  return code === 'bot_check_required' || code === 'bot_check_failed'
}

/** The wait of an IAM 429 in whole seconds (its body's `retry`, else Retry-After); undefined otherwise or when permanent. */
export function retryOf(res: { status: number; body: unknown; headers: Pick<Headers, 'get'> }): number | undefined {
  if (res.status !== 429) return undefined
  const retry = (res.body as { retry?: unknown } | null)?.retry ?? res.headers.get('retry-after')
  const seconds = typeof retry === 'number' ? retry : typeof retry === 'string' && /^\d+$/.test(retry) ? Number(retry) : NaN
  return Number.isSafeInteger(seconds) && seconds >= 0 ? seconds : undefined
}

/** `path` with a `notice=<code>` query parameter per warning code (the layout shows their sentences). */
export function withNotices(path: string, codes: readonly string[]): string {
  if (codes.length === 0) return path
  const query = codes.map((code) => `notice=${encodeURIComponent(code)}`).join('&')
  return `${path}${path.includes('?') ? '&' : '?'}${query}`
}

/** The error code a no-JS page shows for an IAM status. */
export function formErrorCode(status: number): string {
  if (status === 202) return 'mfa_required'
  if (status === 401) return 'invalid_credentials'
  if (status === 403) return 'forbidden'
  if (status === 409) return 'conflict'
  if (status === 429) return 'rate_limited'
  if (status >= 500) return 'unavailable'
  return 'invalid'
}

/** The parsed body as sent, `{}` when there is none or it does not parse (the schema check that follows refuses it). */
export async function rawBody(event: H3Event): Promise<unknown> {
  try {
    return (await readBody(event)) ?? {}
  } catch {
    return {}
  }
}

function parseOrFail<S extends z.ZodType>(event: H3Event, schema: S, raw: unknown, formPath?: string): z.infer<S> {
  const parsed = schema.safeParse(raw)
  if (parsed.success) return parsed.data
  if (formPath && isFormPost(event)) formReply(formPath, 'invalid')
  bffFail(400, { ok: false, error: 'Please check the highlighted fields.', code: 'validation_failed', ...refusedFields(parsed.error, raw, 'form') })
}

type Entry<I extends BffRouteId> = (typeof ROUTES)[I]

/** What the client sent for the fields of `schema` (unknown fields dropped, values untouched). */
function pickShape(schema: z.ZodObject, sent: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.keys(schema.shape).filter((key) => sent[key] !== undefined).map((key) => [key, sent[key]]))
}
/** The allow-listed routes whose entry has an object body schema. */
export type BodyRouteId = { [I in BffRouteId]: Entry<I> extends { body: z.ZodObject } ? I : never }[BffRouteId]

/**
 * The body the BFF forwards to IAM route `id`, checked by that route's own schema in the route
 * table (plus the BFF's own fields `extra`, e.g. `returnTo`), so the BFF refuses exactly what the
 * IAM would, before calling it. `body` is what the browser sent for the entry's fields (the IAM
 * parses it again, transforms included); `extra` is parsed.
 */
export async function readIamBody<I extends BodyRouteId, E extends z.ZodRawShape = Record<never, never>>(
  event: H3Event,
  id: I,
  options: { extra?: E; formPath?: string } = {},
): Promise<{ body: IamInput<I, 'body'>; extra: z.infer<z.ZodObject<E>> }> {
  const schema = ROUTES[id].body as z.ZodObject
  const extra = options.extra ?? ({} as E)
  const raw = await rawBody(event)
  const parsed = parseOrFail(event, schema.extend(extra), raw, options.formPath) as Record<string, unknown>
  const body = pickShape(schema, raw as Record<string, unknown>)
  const extras = Object.fromEntries(Object.keys(extra).map((key) => [key, parsed[key]]))
  return { body: body as IamInput<I, 'body'>, extra: extras as z.infer<z.ZodObject<E>> }
}

/** The BFF's own field of the sign-in forms: where to go afterwards (checked again by safeReturnTo). */
export const returnToField = { returnTo: z.string().max(512).optional() }

/** The allow-listed routes with path parameters. */
export type ParamsRouteId = { [I in BffRouteId]: Entry<I>['path'] extends `${string}:${string}` ? I : never }[BffRouteId]

/**
 * This request's router parameters for IAM route `id` (same names as the entry's `:param`s),
 * checked by the entry's params schema: 400 `{ ok: false, error }` for what the IAM would refuse.
 */
export function readIamParams<I extends ParamsRouteId>(event: H3Event, id: I, error: string): IamInput<I, 'params'> {
  const raw = getRouterParams(event, { decode: true })
  const schema: z.ZodType | undefined = (ROUTES[id] as RouteContract).params
  const decodedOk = Object.values(raw).every((value) => value !== '' && !value.includes('/'))
  if (!decodedOk || (schema && !schema.safeParse(raw).success)) bffFail(400, { ok: false, error, code: 'validation_failed' })
  return raw as IamInput<I, 'params'>
}

/** The allow-listed routes whose entry has an object query schema (the magic-link routes). */
export type QueryRouteId = { [I in BffRouteId]: Entry<I> extends { query: z.ZodObject } ? I : never }[BffRouteId]

/**
 * The magic-link parameters (token, random, reason, visitor) of this request's query, checked by
 * IAM route `id`'s own query schema; 400 when missing or malformed, before any IAM call.
 */
export function readLinkQuery<I extends QueryRouteId>(event: H3Event, id: I): IamInput<I, 'query'> {
  const schema = ROUTES[id].query as z.ZodObject
  const sent = getQuery(event)
  if (!schema.safeParse(sent).success) bffFail(400, { ok: false, error: 'This link is incomplete. Open the link from your email again.', code: 'link_invalid' })
  return pickShape(schema, sent) as IamInput<I, 'query'>
}
