/**
 * The outbox: a delivery row per matching endpoint, written by the caller's transaction (or as one
 * statement), so an event exists exactly when the change it reports committed. One INSERT ...
 * SELECT per webhook type: it writes nothing when no enabled endpoint subscribes, and it is skipped
 * entirely when the in-memory snapshot already says so (subscriptions.ts).
 *
 * The rows of every endpoint are written here, by that one statement, rather than one event row
 * fanned out by the worker later: the event row would have to be written in this transaction all
 * the same (else a crash between commit and fan-out loses the event), and the fan-out would write
 * the same delivery rows, plus its own statement, on the same database a little later. A sign-up
 * with ten endpoints subscribed is one statement here (users, session, this: three in its
 * transaction), whatever the number of endpoints.
 *
 * A delivery about an account that already has one pending for the same endpoint waits behind it:
 * its next attempt is `infinity` (features/webhooks/queue-order.ts), so the worker's claims never
 * look at it until the one before it is settled and moves it up.
 */
// INSERT ... SELECT infers no parameter types from the target columns: each parameter is cast
import { sql, type Kysely, type RawBuilder, type Transaction } from 'kysely'
import type { Database } from '../../db/schema'
import type { SecurityEventInput } from '../security-events/repository'
import type { WebhookEventType } from '../../contract/webhooks'
import { organizationOf, patternsFor, reportsSubjectOnly, webhookData, webhookTypesOf } from './event-map'
import { maybeSubscribed } from './subscriptions'

type Db = Kysely<Database> | Transaction<Database>

/** Whom an event is about: an account by its row id or its public id, or none. */
export type WebhookSubject = { userId: number } | { publicId: string } | null

export interface WebhookEventInput {
  type: WebhookEventType
  subject: WebhookSubject
  /** thin, named fields (event-map.ts): never a secret */
  data: Record<string, string | number | boolean>
  at: Date
  /** only to this endpoint (row id), whatever it subscribes to and even when disabled: the test event */
  endpointId?: number
}

/** Queues `event` for every enabled endpoint subscribed to its type; returns the rows written. */
export async function enqueueWebhookEvent(db: Db, event: WebhookEventInput): Promise<Array<{ id: number; msg_id: string }>> {
  if (event.endpointId === undefined && !maybeSubscribed(event.type)) return []
  const { rows } = await outboxInsert(event).execute(db)
  return rows
}

/** The outbox statement of `event`, run by itself. */
function outboxInsert(event: WebhookEventInput): RawBuilder<{ id: number; msg_id: string }> {
  const subject = event.subject
  // the account's public id: looked up by the statement itself, so the caller needs no round trip
  const publicId =
    subject === null ? sql<string | null>`null::text` : 'userId' in subject ? accountPublicId(subject.userId) : sql<string | null>`${subject.publicId}::text`
  const where =
    event.endpointId === undefined
      ? sql`e.enabled and e.event_types ?| array[${sql.join(patternsFor(event.type))}]::text[] and ${heardBy(organizationOf(event.type, event.data))}`
      : sql`e.id = ${event.endpointId}`
  return outboxStatement({ type: event.type, where, publicId, data: JSON.stringify(event.data), at: event.at.toISOString() })
}

/**
 * Which endpoints hear an event about `organizationId` (null: about no organization): the
 * platform's always, an organization's only about itself (migration 0030). One parameter either
 * way, so the compiled sign-in statement keeps one text.
 */
const heardBy = (organizationId: string | null) => sql<boolean>`(e.organization_id is null or e.organization_id = ${organizationId}::uuid)`

const accountPublicId = (userId: number) => sql<string | null>`(select public_id::text from users where id = ${userId})`

/**
 * The outbox statement's text around its parts; every value a parameter. `data` is the event's
 * JSON text, `at` its moment as ISO 8601 text: each a single value, so the sign-in statement that
 * carries this one can be compiled once (sessions-repo.ts sessionWithOutbox).
 */
function outboxStatement(part: { type: string; where: RawBuilder<unknown>; publicId: RawBuilder<string | null>; data: string; at: string }): RawBuilder<{ id: number; msg_id: string }> {
  const { type, where, publicId, data, at } = part
  return sql<{ id: number; msg_id: string }>`
    insert into webhook_deliveries (msg_id, endpoint_id, event_type, account_key, payload, status, attempts, next_attempt_at, created_at)
    select 'msg_' || replace(gen_random_uuid()::text, '-', ''), e.id, ${type}::text, s.public_id,
      jsonb_build_object(
        'type', ${type}::text,
        'timestamp', ${at}::text,
        'data', case when s.public_id is null then ${data}::jsonb
                     else jsonb_build_object('user', jsonb_build_object('id', s.public_id)) || ${data}::jsonb end),
      'pending', 0,
      -- the newest pending one of the account, read from the top of the account index: read from
      -- its bottom (as EXISTS is), the probe passed every entry of the account's settled deliveries
      -- before vacuum removed them, thousands for an account with a backlog
      case when s.public_id is not null and (
          select o.id from webhook_deliveries o where o.endpoint_id = e.id and o.account_key = s.public_id and o.status = 'pending'
          order by o.id desc limit 1) is not null
        then 'infinity'::timestamptz else ${at}::timestamptz end,
      ${at}::timestamptz
    from webhook_endpoints e cross join (select ${publicId} as public_id) s
    where ${where}
    returning id, msg_id`
}

/**
 * The outbox statement of a security event that becomes one webhook about its own account (a
 * sign-in's `session.created`), for the caller to make part of the statement that writes the event
 * (features/sessions/session-service.ts: a sign-in stays one statement with an endpoint subscribed,
 * not a transaction of four). Null when the event needs more (several types, the record of another
 * account) or none: enqueueForSecurityEvent in a transaction then.
 */
export function outboxPartOf(event: SecurityEventInput): OutboxPart | null {
  if (event.userId === null || reportsSubjectOnly(event.type)) return null
  const types = webhookTypesOf(event.type).filter((type) => maybeSubscribed(type))
  if (types.length !== 1) return null
  const type = types[0]!
  // the compiled statement has a parameter for each of patternsFor's three patterns
  const [pattern1, pattern2, pattern3] = patternsFor(type)
  const data = webhookData(event.details)
  return { type, userId: event.userId, data: JSON.stringify(data), at: event.at.toISOString(), pattern1, pattern2, pattern3, organizationId: organizationOf(type, data) }
}

/**
 * A webhook about one account as the values of its outbox statement: each a single parameter, so
 * the statement's text is the same for every event (the patterns the endpoints' subscriptions are
 * matched against are event-map.ts patternsFor's three).
 */
export interface OutboxPart {
  type: WebhookEventType
  userId: number
  /** the payload's `data`, JSON text */
  data: string
  /** ISO 8601 */
  at: string
  pattern1: string
  pattern2: string
  pattern3: string
  /** the organization it is about, whose own endpoints hear it too (event-map.ts organizationOf); null: platform endpoints only */
  organizationId: string | null
}

/** The outbox statement of `part`, as a part (a CTE) of the change's own statement. */
export function outboxOfPart(part: OutboxPart): RawBuilder<{ id: number; msg_id: string }> {
  const where = sql`e.enabled and e.event_types ?| array[${part.pattern1}::text, ${part.pattern2}::text, ${part.pattern3}::text] and ${heardBy(part.organizationId)}`
  return outboxStatement({ type: part.type, where, publicId: accountPublicId(part.userId), data: part.data, at: part.at })
}

/**
 * The webhooks of a security event, in the same transaction as its row (recordSecurityEvent and
 * the session statements call it right after writing the event).
 */
export async function enqueueForSecurityEvent(db: Db, event: SecurityEventInput): Promise<void> {
  if (event.userId === null) return
  const subjectOnly = reportsSubjectOnly(event.type)
  if (subjectOnly && typeof event.details?.userId !== 'string') return
  for (const type of webhookTypesOf(event.type)) {
    if (!maybeSubscribed(type)) continue
    // impersonation is recorded on both accounts: the account acted on is details.userId
    const subject: WebhookSubject = subjectOnly ? { publicId: event.details!.userId as string } : { userId: event.userId }
    if (subjectOnly && !(await isRecordOf(db, event.userId, event.details!.userId as string))) return
    await enqueueWebhookEvent(db, { type, subject, data: webhookData(event.details), at: event.at })
  }
}

async function isRecordOf(db: Db, userId: number, publicId: string): Promise<boolean> {
  const row = await db.selectFrom('users').select('id').where('id', '=', userId).where(sql<boolean>`public_id::text = ${publicId}`).executeTakeFirst()
  return row !== undefined
}

/** Whether a security event may become a webhook now (cheap, in memory): callers that would open a transaction for it ask first. */
export const securityEventMayNotify = (event: Pick<SecurityEventInput, 'type' | 'userId'>): boolean =>
  event.userId !== null && webhookTypesOf(event.type).some((type) => maybeSubscribed(type))
