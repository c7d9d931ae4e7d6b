/**
 * Reading what the browser sent: JSON (pages with JavaScript) or a urlencoded form (no-JS pages),
 * checked by a zod schema so only known fields, of bounded size, ever reach the IAM. The IAM
 * validates the content itself; this is shape only. Bodies arrive here buffered and bounded
 * (BFF_BODY_LIMIT_BYTES, middleware/15.body-limit.ts): readBody never reads the socket itself.
 */
import { getQuery, readBody, type H3Event } from 'h3'
import { z } from 'zod'
import { isFormPost } from './forms'
import { bffFail } from './respond'

/** A same-origin redirect answer for no-JS forms: 303 to `path`, optional error code in the query. */
export function formReply(path: string, error?: string): never {
  const location = error ? `${path}${path.includes('?') ? '&' : '?'}error=${encodeURIComponent(error)}` : path
  bffFail(303, { ok: error === undefined }, { location })
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

function fieldErrors(error: z.ZodError): Record<string, string> {
  const fields: Record<string, string> = {}
  for (const issue of error.issues) {
    const key = String(issue.path[0] ?? 'form')
    fields[key] ??= issue.message
  }
  return fields
}

/** The parsed body; 400 `{ ok: false, error, fields }` (or a redirect to `formPath` for forms) otherwise. */
export async function readInput<S extends z.ZodType>(event: H3Event, schema: S, formPath?: string): Promise<z.infer<S>> {
  let raw: unknown
  try {
    raw = await readBody(event)
  } catch {
    raw = undefined
  }
  const parsed = schema.safeParse(raw ?? {})
  if (parsed.success) return parsed.data
  if (formPath && isFormPost(event)) formReply(formPath, 'invalid')
  bffFail(400, { ok: false, error: 'Please check the highlighted fields.', fields: fieldErrors(parsed.error) })
}

/** A magic link's four query parameters (token, random, reason, visitor), as the IAM expects them. */
export const linkQuerySchema = z.object({
  token: z.string().min(1).max(4096),
  random: z.string().min(1).max(512),
  reason: z.string().min(1).max(128),
  visitor: z.string().min(1).max(256),
})

export type LinkQuery = z.infer<typeof linkQuerySchema>

/** The link parameters of this request's query; 400 when missing or malformed. */
export function readLinkQuery(event: H3Event): LinkQuery {
  const parsed = linkQuerySchema.safeParse(getQuery(event))
  if (!parsed.success) bffFail(400, { ok: false, error: 'This link is incomplete. Open the link from your email again.' })
  return parsed.data
}
