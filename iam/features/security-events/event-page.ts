/**
 * The audit view (GET /auth/security-events): a user's own events, newest first, in pages.
 * The cursor is `<created_at ms>.<id>` of the last event shown: keyset pagination, so events
 * recorded while the user pages neither repeat nor shift entries.
 */
import type { IamContext } from '../../context'
import { pageSecurityEvents, type SecurityEventCursor } from './repository'

export interface SecurityEventView {
  id: number
  type: string
  createdAt: string
  ipAddress: string | null
  browser?: string
  details: Record<string, unknown>
}

export interface SecurityEventPage {
  events: SecurityEventView[]
  /** the cursor of the next (older) page; absent on the last one */
  nextBefore?: string
}

const formatCursor = (createdAt: Date, id: number) => `${createdAt.getTime()}.${id}`

/** The cursor's parts; the route's schema has checked its shape, this refuses values out of range. */
export function parseEventCursor(value: string): SecurityEventCursor | null {
  const [ms, id] = value.split('.').map(Number)
  if (!Number.isSafeInteger(ms) || !Number.isSafeInteger(id) || id! > 2_147_483_647) return null
  const createdAt = new Date(ms!)
  return Number.isNaN(createdAt.getTime()) ? null : { createdAt, id: id! }
}

export async function listOwnSecurityEvents(
  ctx: IamContext,
  input: { userId: number; limit: number; before: SecurityEventCursor | null },
): Promise<SecurityEventPage> {
  // one row more than asked tells whether an older page exists without a count
  const rows = await pageSecurityEvents(ctx.db, input.userId, { limit: input.limit + 1, before: input.before })
  const shown = rows.slice(0, input.limit)
  const events = shown.map((row) => ({
    id: row.id,
    type: row.type,
    createdAt: row.created_at.toISOString(),
    ipAddress: row.ip_address,
    ...(row.browser ? { browser: row.browser } : {}),
    details: row.details ?? {},
  }))
  const last = shown.at(-1)
  return rows.length > input.limit && last ? { events, nextBefore: formatCursor(last.created_at, last.id) } : { events }
}
