/**
 * The query of a magic link (`token`, `random`, `reason`, `visitor`, all required strings), checked
 * for shape before any crypto or SQL runs. A malformed link is the same 400 as a bad one.
 */
import { z } from 'zod'
import type { LinkParams } from './link-token'
import { safeString } from '../../lib/text'

const linkQuerySchema = z.object({
  token: safeString().min(1).max(2048).regex(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/),
  // 32 bytes in base64url without padding
  random: safeString().regex(/^[A-Za-z0-9_-]{43}$/),
  reason: safeString().regex(/^[A-Za-z0-9_]{1,64}$/),
  visitor: safeString().regex(/^[A-Za-z0-9_.-]{1,128}$/),
})

export function parseLinkQuery(query: unknown): LinkParams | null {
  const parsed = linkQuerySchema.safeParse(query)
  return parsed.success ? parsed.data : null
}

/** Body `{ code }`: exactly 7 ASCII digits. */
export const codeSchema = safeString({ error: 'The code is required' }).regex(/^\d{7}$/, 'The code has 7 digits')
