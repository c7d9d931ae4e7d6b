/**
 * The provisioning log of an organization (scim_events, migration 0020): every change a SCIM
 * client made, and every change to the connection's token, in the transaction of the change.
 * Owners read it (`owners:manage`), newest first.
 */
import type { Kysely, Transaction } from 'kysely'
import type { Database } from '../../db/schema'
import { FORBIDDEN, holds, NOT_FOUND, readActor, type Forbidden, type NotFound } from '../organizations/actor'

export type ScimAction =
  | 'token.created'
  | 'token.rotated'
  | 'token.revoked'
  | 'user.created'
  | 'user.linked'
  | 'user.updated'
  | 'user.deactivated'
  | 'user.reactivated'
  | 'user.deleted'
  | 'group.created'
  | 'group.updated'
  | 'group.deleted'
  | 'group.member_added'
  | 'group.member_removed'

export interface ScimEventInput {
  orgId: number
  at: Date
  action: ScimAction
  /** the SCIM id of the user or group acted on; null for the token */
  target: string | null
  details: Record<string, unknown>
}

export async function recordScimEvent(db: Kysely<Database> | Transaction<Database>, event: ScimEventInput): Promise<void> {
  await db.insertInto('scim_events').values({ org_id: event.orgId, at: event.at, action: event.action, target: event.target, details: JSON.stringify(event.details) }).execute()
}

export interface ScimEventView {
  id: number
  at: string
  action: string
  target: string | null
  details: Record<string, unknown>
}

/** The most recent events (at most `limit`), newest first (owners:manage). */
export async function listScimEvents(db: Kysely<Database>, input: { orgId: string; userId: number; limit: number }): Promise<{ ok: true; events: ScimEventView[] } | NotFound | Forbidden> {
  const actor = await readActor(db, input.orgId, input.userId)
  if (!actor) return NOT_FOUND
  if (!holds(actor, 'owners:manage')) return FORBIDDEN
  const rows = await db.selectFrom('scim_events').select(['id', 'at', 'action', 'target', 'details']).where('org_id', '=', actor.orgId).orderBy('id', 'desc').limit(input.limit).execute()
  return {
    ok: true,
    events: rows.map((r) => ({ id: r.id, at: new Date(r.at).toISOString(), action: r.action, target: r.target, details: (typeof r.details === 'string' ? JSON.parse(r.details) : r.details) as Record<string, unknown> })),
  }
}
