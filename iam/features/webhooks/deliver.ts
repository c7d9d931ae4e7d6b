/**
 * The delivery worker's round: take due deliveries, send each once, record the attempt and decide
 * what follows. Run by every instance on a timer, and again as soon as answers free slots
 * (plugins/03.webhooks.ts).
 *
 * - Taking: one statement takes up to `batch` due rows (less those still in flight) for `leaseMs`, with `FOR UPDATE SKIP
 *   LOCKED`, so instances never take the same row, and a row whose lease ran out (its instance
 *   died mid-delivery) is taken again: nothing is lost, at the price of a possible second send,
 *   which the receiver recognises by its unchanged `webhook-id`. A row waits while an older one
 *   of the same account for the same endpoint is still pending: one account's events arrive in
 *   order as far as the schedule allows (queue-order.ts: a waiting row is out of the claim's order
 *   until the one before it is settled). The first-of-its-account check is `id = min(id)`, which
 *   reads the account index; written as `not exists (... o.id < d2.id)`, PostgreSQL chose a
 *   primary-key range scan per row, seconds for a queue of thousands.
 * - Sending: through the outbound guard (shared/outbound.ts): https only unless configured, no
 *   internal address, redirects not followed, one deadline, a size cap on the answer.
 * - Deciding: 2xx delivered; 410 switches the endpoint off (`gone`, RFC 9110 section 15.5.11: the
 *   resource is gone for good); anything else is tried again on the schedule (schedule.ts,
 *   Retry-After honoured) until it runs out (`dead`); a long enough run of failures switches the
 *   endpoint off (`failing`). Each outcome is written only while this instance still holds the
 *   lease, so a late answer cannot overwrite what another instance did since; successes together,
 *   one statement for those that arrived meanwhile (recordDelivered), a failure in a transaction
 *   with its endpoint's run of failures.
 */
import { sql, type Transaction } from 'kysely'
import type { Database } from '../../db/schema'
import type { IamContext } from '../../context'
import { emitSignal } from '../../lib/signals'
import { guardedFetch, OutboundRefused } from '../../../shared/outbound'
import { runAfterResponse } from '../../lib/background'
import { mailEndpointSwitchedOff, type SwitchedOff } from './disabled-notice'
import { outboundPolicyOf } from './policy'
import { moveUpNext } from './queue-order'
import { nextAttempt, parseRetryAfter } from './schedule'
import { openWebhookSecretOnce, signatureHeader } from './secret'

type Ctx = Pick<IamContext, 'config' | 'db' | 'now' | 'log'>

/** The longest excerpt of an answer kept in the delivery log. */
export const EXCERPT_CHARS = 1000

/** A taken delivery, with what its endpoint's request needs (read by the same statement). */
interface Claimed {
  id: number
  msg_id: string
  endpoint_id: number
  account_key: string | null
  payload: Record<string, unknown>
  attempts: number
  leased_until: Date
  endpoint_public_id: string
  endpoint_url: string
  /** an organization's endpoint: its owners chose the URL, which may reach less (policy.ts) */
  endpoint_of_organization: boolean
  secret_sealed: string
  previous_secret_sealed: string | null
  previous_secret_expires_at: Date | null
}

/**
 * Takes (leases) up to `limit` due deliveries for this instance.
 *
 * The due rows are read in the due index's order, a window of a few times `limit`, before the
 * first-of-its-account check picks among them: given the whole check at once, PostgreSQL's plan for
 * a backlog of thousands due (the actual time in hand, as each call sends it) read and sorted every
 * due row with the check on each, ~20 ms against under 1 ms for the window (EXPLAIN ANALYZE on
 * 4,000 due rows). The window holds no row of a disabled endpoint and none in flight, so what it
 * passes over is only a row queued behind another of its account (queue-order.ts), which is rare
 * among due rows: the rows it holds are locked for this statement only.
 *
 * Of the rows it picks, at most `webhooks.maxInFlightPerEndpoint` less those in flight (`busy`) are
 * one endpoint's (ranked per endpoint in the same order); an endpoint with no room is kept out of
 * the window. What an endpoint's rank leaves out waits for the next claim, at the latest the next poll.
 */
async function claimDue(ctx: Ctx, now: Date, limit: number, busy: ReadonlyMap<number, number>): Promise<Claimed[]> {
  const { leaseMs, maxInFlightPerEndpoint: cap } = ctx.config.webhooks
  const nowText = now.toISOString()
  const leaseEnd = new Date(now.getTime() + leaseMs).toISOString()
  // the room each endpoint with deliveries in flight on this instance has left; the others have `cap`.
  // An endpoint without room is left out of the window itself: its backlog, oldest first, would
  // otherwise fill the window and hide every other endpoint's due rows behind it.
  const busyIds = [...busy.keys()]
  const rooms = busyIds.map((id) => Math.max(0, cap - busy.get(id)!))
  const full = busyIds.filter((_, i) => rooms[i] === 0)
  const { rows } = await sql<Claimed>`
    update webhook_deliveries d set leased_until = ${leaseEnd}::timestamptz
    from (
      select f.id from (
        select w.id, w.next_attempt_at, w.endpoint_id,
          row_number() over (partition by w.endpoint_id order by w.next_attempt_at, w.id) as nth
        from (
          select d1.id, d1.endpoint_id, d1.account_key, d1.next_attempt_at from webhook_deliveries d1
          where d1.status = 'pending' and d1.next_attempt_at <= ${nowText}::timestamptz
            and (d1.leased_until is null or d1.leased_until <= ${nowText}::timestamptz)
            and exists (select 1 from webhook_endpoints e where e.id = d1.endpoint_id and (e.enabled or d1.event_type = 'webhook.test'))
            and d1.endpoint_id <> all(${full}::int[])
          order by d1.next_attempt_at, d1.id
          limit ${limit * 4}::int
          for update of d1 skip locked
        ) w
        where w.account_key is null or w.id = (
          select min(o.id) from webhook_deliveries o
          where o.endpoint_id = w.endpoint_id and o.account_key = w.account_key and o.status = 'pending')
      ) f
      left join unnest(${busyIds}::int[], ${rooms}::int[]) as r(endpoint_id, room) on r.endpoint_id = f.endpoint_id
      where f.nth <= coalesce(r.room, ${cap}::int)
      order by f.next_attempt_at, f.id
      limit ${limit}::int
    ) c, webhook_endpoints e
    where d.id = c.id and e.id = d.endpoint_id
    returning d.id, d.msg_id, d.endpoint_id, d.account_key, d.payload, d.attempts, d.leased_until,
      e.public_id as endpoint_public_id, e.url as endpoint_url, e.organization_id is not null as endpoint_of_organization,
      e.secret_sealed, e.previous_secret_sealed, e.previous_secret_expires_at`.execute(ctx.db)
  return rows
}

/** How a worker goes on from a delivered row to the next one of its account (see startDeliveries). */
export interface DeliveryOptions {
  random?: () => number
  /**
   * Asked as each success is written: while it says yes, that statement also leases the next
   * delivery of the same account to the same endpoint, and it is sent at once, without a claim.
   * Without it, the next one is only moved up, for a later claim to take.
   */
  chain?: () => boolean
  /**
   * deliveries in flight on this instance by endpoint row id: a claim takes no more for an endpoint
   * than `webhooks.maxInFlightPerEndpoint` less these (a slot's chain stays on its endpoint)
   */
  busy?: ReadonlyMap<number, number>
}

/**
 * Takes up to `limit` due deliveries and starts sending them: `claimed` says how many, `settled`
 * holds one promise per slot, settling once that delivery, and every delivery chained after it,
 * was recorded; `done`, once all are. The caller does not wait for them before taking more, so one
 * slow receiver holds only its own deliveries' slots, not the whole worker.
 *
 * A chain: one account's events reach an endpoint one at a time, in order (queue-order.ts), so
 * each delivered one makes the next due. The statement that writes the success leases that next
 * one to this instance and reads what its request needs, and the slot goes on with it: for an
 * account with a backlog (a person signing in again and again), one statement per answer instead
 * of a write and then a claim, and no wait for the next poll.
 */
export async function startDeliveries(
  ctx: Ctx,
  limit: number,
  options: DeliveryOptions = {},
): Promise<{ claimed: number; slots: Array<{ endpointId: number; settled: Promise<void> }>; settled: Promise<void>[]; done: Promise<void> }> {
  const claimed = await claimDue(ctx, new Date(ctx.now()), limit, options.busy ?? new Map())
  const slots = claimed.map((row) => ({ endpointId: row.endpoint_id, settled: deliverChain(ctx, row, options) }))
  const settled = slots.map((slot) => slot.settled)
  return { claimed: claimed.length, slots, settled, done: Promise.all(settled).then(() => undefined) }
}

async function deliverChain(ctx: Ctx, first: Claimed, options: DeliveryOptions): Promise<void> {
  const random = options.random ?? Math.random
  const chain = options.chain ?? (() => false)
  let row: Claimed | null = first
  while (row) {
    const next: Claimed | null = await attempt(ctx, row, random, chain())
    // leased by the write, but the worker stopped since (a shutdown): released for a claim to take
    if (next && !chain()) {
      await sql`update webhook_deliveries set leased_until = null where id = ${next.id} and leased_until = ${next.leased_until.toISOString()}::timestamptz`.execute(ctx.db)
      return
    }
    row = next
  }
}

interface Outcome {
  status: number | null
  error: string | null
  excerpt: string | null
  retryAfterMs: number | null
}

async function send(ctx: Ctx, row: Claimed): Promise<Outcome> {
  const at = new Date(ctx.now())
  const secrets = [openWebhookSecretOnce(ctx.config.secrets.totpKeys, row.endpoint_public_id, row.secret_sealed)]
  if (row.previous_secret_sealed && row.previous_secret_expires_at && row.previous_secret_expires_at > at) {
    secrets.push(openWebhookSecretOnce(ctx.config.secrets.totpKeys, row.endpoint_public_id, row.previous_secret_sealed))
  }
  const live = secrets.filter((s): s is string => s !== null)
  if (live.length === 0) return { status: null, error: 'secret_unreadable', excerpt: null, retryAfterMs: null }
  const body = JSON.stringify(row.payload)
  try {
    const answer = await guardedFetch(
      row.endpoint_url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'identity-platform-webhooks',
          'webhook-id': row.msg_id,
          'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
          'webhook-signature': signatureHeader(live, row.msg_id, at, body),
        },
        body,
      },
      outboundPolicyOf(ctx.config, row.endpoint_of_organization ? 'organization' : 'platform'),
    )
    const text = answer.body.toString('utf8')
    return {
      status: answer.status,
      error: answer.status >= 300 && answer.status < 400 ? 'redirect_not_followed' : null,
      excerpt: text ? text.slice(0, EXCERPT_CHARS) : null,
      retryAfterMs: parseRetryAfter(answer.headers['retry-after'], ctx.now()),
    }
  } catch (error) {
    return { status: null, error: error instanceof OutboundRefused ? error.reason : 'network', excerpt: null, retryAfterMs: null }
  }
}

/** One request and its record; the next delivery of the account when the record leased it (`chain`). */
async function attempt(ctx: Ctx, row: Claimed, random: () => number, chain: boolean): Promise<Claimed | null> {
  const endpoint = { id: row.endpoint_id, public_id: row.endpoint_public_id }
  const started = performance.now()
  const outcome = await send(ctx, row)
  const durationMs = Math.round(performance.now() - started)
  const now = new Date(ctx.now())
  const attempts = row.attempts + 1
  const ok = outcome.status !== null && outcome.status >= 200 && outcome.status < 300
  if (ok) {
    const written = await recordDelivered(ctx, row, endpoint.id, attempts, now, outcome, durationMs, chain)
    if (written) emitSignal({ kind: 'webhookDelivery', outcome: 'delivered' })
    return written ? written.next : null
  }
  const switchedOff = await ctx.db.transaction().execute(async (trx): Promise<SwitchedOff | null> => {
    const mine = sql<boolean>`leased_until = ${row.leased_until.toISOString()}::timestamptz`
    const step = nextAttempt({
      attempts,
      nowMs: now.getTime(),
      scheduleMs: ctx.config.webhooks.retryScheduleMs,
      jitter: ctx.config.webhooks.jitter,
      retryAfterMs: outcome.retryAfterMs,
      random: random(),
    })
    const kind = outcome.status === 410 ? 'gone' : step.kind === 'dead' ? 'dead' : 'retry'
    const done = await trx
      .updateTable('webhook_deliveries')
      .set({
        status: step.kind === 'dead' ? 'dead' : 'pending',
        attempts,
        next_attempt_at: step.kind === 'retry' ? new Date(step.atMs) : now,
        leased_until: null,
        last_status: outcome.status,
      })
      .where('id', '=', row.id)
      .where(mine)
      .executeTakeFirst()
    if (done.numUpdatedRows === 0n) return null
    if (step.kind === 'dead') await moveUpNext(trx, { endpointId: row.endpoint_id, accountKey: row.account_key }, now)
    let switched: SwitchedOff | null = null
    if (outcome.status === 410) {
      // only an endpoint still on is switched (and its owners told): a second 410 changes nothing
      const gone = await trx
        .updateTable('webhook_endpoints')
        .set({ enabled: false, disabled_reason: 'gone', updated_at: now })
        .where('id', '=', endpoint.id)
        .where('enabled', '=', true)
        .returning('id')
        .executeTakeFirst()
      if (gone) {
        ctx.log.warn('webhook endpoint disabled: it answered 410 Gone', { endpoint: endpoint.public_id })
        switched = { publicId: endpoint.public_id, url: row.endpoint_url, reason: 'gone', at: now }
      }
    } else {
      const since = await countFailure(ctx, trx, endpoint, now)
      if (since) switched = { publicId: endpoint.public_id, url: row.endpoint_url, reason: 'failing', since, at: now }
    }
    await trx
      .insertInto('webhook_attempts')
      .values({ delivery_id: row.id, endpoint_id: endpoint.id, attempted_at: now, status: outcome.status, duration_ms: durationMs, error: outcome.error, response_excerpt: outcome.excerpt })
      .execute()
    emitSignal({ kind: 'webhookDelivery', outcome: kind })
    return switched
  })
  // told once the switch committed, apart from the delivery (a shutdown waits for the mails)
  if (switchedOff) {
    runAfterResponse(
      () => mailEndpointSwitchedOff(ctx, switchedOff),
      (error) => ctx.log.error('webhook endpoint notice not sent', { endpoint: switchedOff.publicId, error: error.message }),
    )
  }
  return null
}

/** A delivered attempt waiting for its write, and the promise of that write. */
interface Success {
  id: number
  leasedUntil: string
  endpointId: number
  attempts: number
  at: string
  status: number
  durationMs: number
  excerpt: string | null
  /** whether to lease the next delivery of its account (DeliveryOptions.chain) */
  chain: boolean
  settle: (written: Written | null) => void
  fail: (error: unknown) => void
}

/** A success as written: with the next delivery of its account when the statement leased it. */
interface Written {
  next: Claimed | null
}

/** The successes each database's writer has not written yet (one writer per pool: per instance). */
const writers = new WeakMap<object, { queue: Success[]; writing: boolean }>()

/** The most successes one statement writes; more wait for the next. */
const WRITE_GROUP = 200

/**
 * A success, written together with the others that arrived meanwhile: the answers read in the same
 * turn of the event loop, and while a statement runs the answers that come in queue for the next
 * (group commit). A lone success is written at once; ten answers of one event cost one or two
 * statements instead of ten.
 * Null when it was not written: this instance had lost the lease.
 */
function recordDelivered(ctx: Ctx, row: Claimed, endpointId: number, attempts: number, now: Date, outcome: Outcome, durationMs: number, chain: boolean): Promise<Written | null> {
  let writer = writers.get(ctx.db)
  if (!writer) writers.set(ctx.db, (writer = { queue: [], writing: false }))
  const { queue } = writer
  const written = new Promise<Written | null>((settle, fail) => {
    queue.push({
      id: row.id,
      leasedUntil: row.leased_until.toISOString(),
      endpointId,
      attempts,
      at: now.toISOString(),
      status: outcome.status!,
      durationMs,
      excerpt: outcome.excerpt,
      chain,
      settle,
      fail,
    })
  })
  if (!writer.writing) {
    writer.writing = true
    // after the other answers node read in this same turn of its event loop: they join the statement
    setImmediate(() => void writeQueued(ctx, writer))
  }
  return written
}

async function writeQueued(ctx: Ctx, writer: { queue: Success[]; writing: boolean }): Promise<void> {
  try {
    while (writer.queue.length > 0) {
      const group = writer.queue.splice(0, WRITE_GROUP)
      try {
        const written = await writeDelivered(ctx, group)
        for (const s of group) s.settle(written.get(s.id) ?? null)
      } catch (error) {
        for (const s of group) s.fail(error)
      }
    }
  } finally {
    writer.writing = false
  }
}

/**
 * Successes in one statement (a statement is atomic by itself): each delivery marked delivered
 * while this instance still holds its lease, the next delivery of its account moved up (and, for a
 * chaining success of an enabled endpoint, leased to this instance and read for its request), the
 * endpoints' runs of failures forgotten (written only when there is one: most successes follow a
 * success, and an unchanged row is not rewritten, so parallel deliveries to one endpoint do not
 * queue on its row lock), the delivering attempt kept on each row (migration 0029). Nothing but the deliveries' checks where the lease
 * was lost. What it wrote, by delivery id.
 *
 * Every delivery the worker sends is one of these on a healthy receiver: few round trips instead
 * of a transaction of five each keeps the worker's share of the database small beside the
 * requests it shares it with (bench/README.md, `webhooks-signup`). The group travels as one JSON
 * parameter, which PostgreSQL and PGlite read alike.
 */
async function writeDelivered(ctx: Ctx, group: readonly Success[]): Promise<Map<number, Written>> {
  const values = JSON.stringify(
    group.map((s) => ({ id: s.id, leased_until: s.leasedUntil, endpoint_id: s.endpointId, attempts: s.attempts, at: s.at, status: s.status, duration_ms: s.durationMs, excerpt: s.excerpt, chain: s.chain })),
  )
  const leaseEnd = new Date(ctx.now() + ctx.config.webhooks.leaseMs).toISOString()
  const { rows } = await sql<{ id: number } & { [K in keyof Claimed as `next_${K}`]: Claimed[K] | null }>`
    with v as (
      -- the limit tells the planner how few rows these are: it reaches the deliveries by their
      -- primary key instead of reading the whole table (a set-returning function counts as 100 rows)
      select * from jsonb_to_recordset(${values}::jsonb)
        as v(id int, leased_until timestamptz, endpoint_id int, attempts int, at timestamptz, status int, duration_ms int, excerpt text, chain boolean)
      limit ${group.length}::int
    ), d as (
      -- the delivering attempt stays on the row (migration 0029): no webhook_attempts row for it
      update webhook_deliveries w set status = 'delivered', attempts = v.attempts, delivered_at = v.at, leased_until = null, last_status = v.status,
        last_duration_ms = v.duration_ms, last_excerpt = v.excerpt
      from v where w.id = v.id and w.leased_until = v.leased_until
      returning w.id, w.endpoint_id, w.account_key
    ), n as (
      -- the next delivery of each settled one's account to its endpoint, waiting behind it
      -- (queue-order.ts): this statement still sees the settled rows as pending, hence id > d.id.
      -- Moved up, and leased too when chained, as a claim would lease it: its endpoint enabled
      update webhook_deliveries f set next_attempt_at = v.at,
        leased_until = case when v.chain and ep.enabled then ${leaseEnd}::timestamptz end
      from d join v on v.id = d.id join webhook_endpoints ep on ep.id = d.endpoint_id
      where d.account_key is not null and f.next_attempt_at = 'infinity'
        and f.id = (select min(o.id) from webhook_deliveries o
                    where o.endpoint_id = d.endpoint_id and o.account_key = d.account_key and o.status = 'pending' and o.id > d.id)
      returning d.id as after_id, f.id, f.msg_id, f.endpoint_id, f.account_key, f.payload, f.attempts, f.leased_until,
        ep.public_id as endpoint_public_id, ep.url as endpoint_url, ep.organization_id is not null as endpoint_of_organization,
        ep.secret_sealed, ep.previous_secret_sealed, ep.previous_secret_expires_at
    ), e as (
      update webhook_endpoints set consecutive_failures = 0, failing_since = null
      where id in (select v.endpoint_id from v join d on d.id = v.id) and (consecutive_failures <> 0 or failing_since is not null)
    )
    select d.id, n.id as next_id, n.msg_id as next_msg_id, n.endpoint_id as next_endpoint_id, n.account_key as next_account_key,
      n.payload as next_payload, n.attempts as next_attempts, n.leased_until as next_leased_until,
      n.endpoint_public_id as next_endpoint_public_id, n.endpoint_url as next_endpoint_url, n.endpoint_of_organization as next_endpoint_of_organization,
      n.secret_sealed as next_secret_sealed,
      n.previous_secret_sealed as next_previous_secret_sealed, n.previous_secret_expires_at as next_previous_secret_expires_at
    from d left join n on n.after_id = d.id`.execute(ctx.db)
  const written = new Map<number, Written>()
  for (const r of rows) {
    const next: Claimed | null =
      r.next_id !== null && r.next_leased_until !== null
        ? {
            id: r.next_id,
            msg_id: r.next_msg_id!,
            endpoint_id: r.next_endpoint_id!,
            account_key: r.next_account_key,
            payload: r.next_payload!,
            attempts: r.next_attempts!,
            leased_until: r.next_leased_until,
            endpoint_public_id: r.next_endpoint_public_id!,
            endpoint_url: r.next_endpoint_url!,
            endpoint_of_organization: r.next_endpoint_of_organization!,
            secret_sealed: r.next_secret_sealed!,
            previous_secret_sealed: r.next_previous_secret_sealed,
            previous_secret_expires_at: r.next_previous_secret_expires_at,
          }
        : null
    written.set(r.id, { next })
  }
  return written
}

/**
 * One more failure in a row; switches the endpoint off once the run is long enough in count and in
 * time. When it switched it: the moment the run began, else null.
 */
async function countFailure(ctx: Ctx, trx: Transaction<Database>, endpoint: { id: number; public_id: string }, now: Date): Promise<Date | null> {
  const { disableAfterFailures, disableAfterFailingMs } = ctx.config.webhooks
  const nowText = now.toISOString()
  const cutoff = new Date(now.getTime() - disableAfterFailingMs).toISOString()
  const { rows } = await sql<{ switched: boolean; failing_since: Date | string }>`
    update webhook_endpoints w set
      enabled = w.enabled and not s.off,
      disabled_reason = case when s.off then 'failing' else w.disabled_reason end,
      consecutive_failures = w.consecutive_failures + 1,
      failing_since = coalesce(w.failing_since, ${nowText}::timestamptz)
    from (
      select id, (enabled and consecutive_failures + 1 >= ${disableAfterFailures}::int
                  and coalesce(failing_since, ${nowText}::timestamptz) <= ${cutoff}::timestamptz) as off
      from webhook_endpoints where id = ${endpoint.id} for update
    ) s
    where w.id = s.id
    returning s.off as switched, w.failing_since`.execute(trx)
  const row = rows[0]
  if (!row?.switched) return null
  ctx.log.warn('webhook endpoint disabled: it kept failing', { endpoint: endpoint.public_id })
  return new Date(row.failing_since)
}
