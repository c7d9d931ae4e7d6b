/**
 * Security events, the audit log: one row per sensitive event (sign-ins ok and
 * failed, MFA sent/passed/failed, sessions revoked, password and email changes, second factors,
 * API tokens, bans), with who, which device, from where and when. Never secrets: no password, code,
 * token or link goes into `details`.
 */
import { sql, type Kysely, type Transaction } from 'kysely'
import type { Database, NewSecurityEvent } from '../../db/schema'
import { emitSignal } from '../../lib/signals'
import type { SecurityEventType } from '../../contract/security-event-types'
import type { Locale } from '../../contract/locales'
import { enqueueForSecurityEvent } from '../webhooks/outbox'

export type { SecurityEventType } from '../../contract/security-event-types'

export interface SecurityEventInput {
  type: SecurityEventType
  userId: number | null
  /** visitors.id of the device, when known */
  visitorRowId: number | null
  ipAddress: string | null
  details?: Record<string, unknown>
  at: Date
}

/** The row of an event (also inserted as part of another statement: sessions-repo.insertSessionAtOnce). */
export function securityEventRow(event: SecurityEventInput): NewSecurityEvent {
  return {
    type: event.type,
    user_id: event.userId,
    visitor_id: event.visitorRowId,
    ip_address: event.ipAddress,
    details: JSON.stringify(event.details ?? {}),
    created_at: event.at,
  }
}

/** Counts a written event for iam_security_events_total. */
export const countSecurityEvent = (event: SecurityEventInput): void => emitSignal({ kind: 'securityEvent', type: event.type })

/**
 * Writes the event, and the webhooks it becomes (features/webhooks/event-map.ts) with the same
 * `db`: inside the caller's transaction, the delivery rows commit or roll back with the change.
 * Nothing more is sent when no endpoint subscribes (features/webhooks/subscriptions.ts).
 */
export async function recordSecurityEvent(db: Kysely<Database> | Transaction<Database>, event: SecurityEventInput): Promise<void> {
  await db.insertInto('security_events').values(securityEventRow(event)).execute()
  await enqueueForSecurityEvent(db, event)
  // counted once written (inside a transaction that later rolls back it would be counted anyway: rare, and harmless for a rate)
  countSecurityEvent(event)
}

/** The request's device and network, recorded with every completed action. */
export interface Actor {
  visitorRowId: number | null
  ipAddress: string
  fingerprint: Record<string, unknown> | null
  /** the language the request asked for (Accept-Language, iam/contract/locales.ts): the mails' language when the account chose none */
  locale?: Locale
  /** the IANA time zone the request named (X-Time-Zone, iam/contract/time-zones.ts), checked; the mails' zone when the account has none stored */
  timeZone?: string | null
}

/** An action a signed-in user took from `actor`'s device and address. */
export function recordUserAction(
  db: Kysely<Database> | Transaction<Database>,
  type: SecurityEventType,
  input: { userId: number; actor: Pick<Actor, 'visitorRowId' | 'ipAddress'>; details: Record<string, unknown>; at: Date },
): Promise<void> {
  const { userId, actor, details, at } = input
  return recordSecurityEvent(db, { type, userId, visitorRowId: actor.visitorRowId, ipAddress: actor.ipAddress, details, at })
}

/** Where a page of events ends: the next page holds the events strictly older than this one. */
export interface SecurityEventCursor {
  createdAt: Date
  id: number
}

/**
 * One page of a user's own events, newest first (keyset pagination on (created_at, id), served by
 * security_events_user_idx), with the browser of the recording device when it is known.
 */
export async function pageSecurityEvents(db: Kysely<Database>, userId: number, page: { limit: number; before: SecurityEventCursor | null }) {
  let query = db
    .selectFrom('security_events as e')
    .leftJoin('visitors as v', 'v.id', 'e.visitor_id')
    .select(['e.id', 'e.type', 'e.created_at', 'e.ip_address', 'e.details', sql<string | null>`v.fingerprint->>'browser'`.as('browser')])
    .where('e.user_id', '=', userId)
  if (page.before) {
    const { createdAt, id } = page.before
    query = query.where(sql<boolean>`(e.created_at, e.id) < (${createdAt}::timestamptz, ${id}::integer)`)
  }
  return query.orderBy('e.created_at', 'desc').orderBy('e.id', 'desc').limit(page.limit).execute()
}
