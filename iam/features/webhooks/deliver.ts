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
 *   order as far as the schedule allows.
 * - Sending: through the outbound guard (shared/outbound.ts): https only unless configured, no
 *   internal address, redirects not followed, one deadline, a size cap on the answer.
 * - Deciding: 2xx delivered; 410 switches the endpoint off (`gone`, RFC 9110 section 15.5.11: the
 *   resource is gone for good); anything else is tried again on the schedule (schedule.ts,
 *   Retry-After honoured) until it runs out (`dead`); a long enough run of failures switches the
 *   endpoint off (`failing`). Each outcome is written only while this instance still holds the
 *   lease, so a late answer cannot overwrite what another instance did since; a success in one
 *   statement (recordDelivered), a failure in a transaction with its endpoint's run of failures.
 */
import { sql, type Transaction } from 'kysely'
import type { Database } from '../../db/schema'
import type { IamContext } from '../../context'
import { emitSignal } from '../../lib/signals'
import { guardedFetch, OutboundRefused } from '../../../shared/outbound'
import { outboundPolicyOf } from './policy'
import { nextAttempt, parseRetryAfter } from './schedule'
import { openWebhookSecret, signatureHeader } from './secret'

type Ctx = Pick<IamContext, 'config' | 'db' | 'now' | 'log'>

/** The longest excerpt of an answer kept in the delivery log. */
export const EXCERPT_CHARS = 1000

interface Claimed {
  id: number
  msg_id: string
  endpoint_id: number
  payload: Record<string, unknown>
  attempts: number
  leased_until: Date
}

interface EndpointSecrets {
  id: number
  public_id: string
  url: string
  secret_sealed: string
  previous_secret_sealed: string | null
  previous_secret_expires_at: Date | null
}

/** Takes (leases) up to `limit` due deliveries for this instance. */
async function claimDue(ctx: Ctx, now: Date, limit: number): Promise<Claimed[]> {
  const { leaseMs } = ctx.config.webhooks
  const nowText = now.toISOString()
  const leaseEnd = new Date(now.getTime() + leaseMs).toISOString()
  const { rows } = await sql<Claimed>`
    update webhook_deliveries d set leased_until = ${leaseEnd}::timestamptz
    from (
      select d2.id from webhook_deliveries d2
      join webhook_endpoints e on e.id = d2.endpoint_id
      where d2.status = 'pending' and d2.next_attempt_at <= ${nowText}::timestamptz
        and (d2.leased_until is null or d2.leased_until <= ${nowText}::timestamptz)
        and (e.enabled or d2.event_type = 'webhook.test')
        and (d2.account_key is null or not exists (
          select 1 from webhook_deliveries o
          where o.endpoint_id = d2.endpoint_id and o.account_key = d2.account_key and o.status = 'pending' and o.id < d2.id))
      order by d2.next_attempt_at, d2.id
      limit ${limit}
      for update of d2 skip locked
    ) c
    where d.id = c.id
    returning d.id, d.msg_id, d.endpoint_id, d.payload, d.attempts, d.leased_until`.execute(ctx.db)
  return rows
}

/**
 * Takes up to `limit` due deliveries and starts sending them: `claimed` says how many, `done`
 * settles once each attempt was recorded. The caller does not wait for `done` before taking more,
 * so one slow receiver holds only its own deliveries' slots, not the whole worker.
 */
export async function startDeliveries(ctx: Ctx, limit: number, random: () => number = Math.random): Promise<{ claimed: number; done: Promise<void> }> {
  const claimed = await claimDue(ctx, new Date(ctx.now()), limit)
  if (claimed.length === 0) return { claimed: 0, done: Promise.resolve() }
  const endpoints = await ctx.db
    .selectFrom('webhook_endpoints')
    .select(['id', 'public_id', 'url', 'secret_sealed', 'previous_secret_sealed', 'previous_secret_expires_at'])
    .where('id', 'in', [...new Set(claimed.map((c) => c.endpoint_id))])
    .execute()
  const byId = new Map(endpoints.map((e) => [e.id, e]))
  const done = Promise.all(claimed.map((row) => attempt(ctx, row, byId.get(row.endpoint_id), random))).then(() => undefined)
  return { claimed: claimed.length, done }
}

interface Outcome {
  status: number | null
  error: string | null
  excerpt: string | null
  retryAfterMs: number | null
}

async function send(ctx: Ctx, row: Claimed, endpoint: EndpointSecrets): Promise<Outcome> {
  const at = new Date(ctx.now())
  const secrets = [openWebhookSecret(ctx.config.secrets.totpKeys, endpoint.public_id, endpoint.secret_sealed)]
  if (endpoint.previous_secret_sealed && endpoint.previous_secret_expires_at && endpoint.previous_secret_expires_at > at) {
    secrets.push(openWebhookSecret(ctx.config.secrets.totpKeys, endpoint.public_id, endpoint.previous_secret_sealed))
  }
  const live = secrets.filter((s): s is string => s !== null)
  if (live.length === 0) return { status: null, error: 'secret_unreadable', excerpt: null, retryAfterMs: null }
  const body = JSON.stringify(row.payload)
  try {
    const answer = await guardedFetch(
      endpoint.url,
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
      outboundPolicyOf(ctx.config),
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

async function attempt(ctx: Ctx, row: Claimed, endpoint: EndpointSecrets | undefined, random: () => number): Promise<void> {
  if (!endpoint) return // removed meanwhile: its deliveries went with it
  const started = performance.now()
  const outcome = await send(ctx, row, endpoint)
  const durationMs = Math.round(performance.now() - started)
  const now = new Date(ctx.now())
  const attempts = row.attempts + 1
  const ok = outcome.status !== null && outcome.status >= 200 && outcome.status < 300
  if (ok) {
    if (await recordDelivered(ctx, row, endpoint.id, attempts, now, outcome, durationMs)) emitSignal({ kind: 'webhookDelivery', outcome: 'delivered' })
    return
  }
  await ctx.db.transaction().execute(async (trx) => {
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
    if (done.numUpdatedRows === 0n) return
    if (outcome.status === 410) {
      await trx.updateTable('webhook_endpoints').set({ enabled: false, disabled_reason: 'gone', updated_at: now }).where('id', '=', endpoint.id).execute()
      ctx.log.warn('webhook endpoint disabled: it answered 410 Gone', { endpoint: endpoint.public_id })
    } else {
      await countFailure(ctx, trx, endpoint, now)
    }
    await trx
      .insertInto('webhook_attempts')
      .values({ delivery_id: row.id, endpoint_id: endpoint.id, attempted_at: now, status: outcome.status, duration_ms: durationMs, error: outcome.error, response_excerpt: outcome.excerpt })
      .execute()
    emitSignal({ kind: 'webhookDelivery', outcome: kind })
  })
}

/**
 * A success, written in one statement (a statement is atomic by itself): the delivery marked
 * delivered while this instance still holds its lease, the endpoint's run of failures forgotten
 * (written only when there is one: most successes follow a success, and an unchanged row is not
 * rewritten, so parallel deliveries to one endpoint do not queue on its row lock), the attempt
 * logged. Nothing but the delivery's check when the lease was lost. True when it was written.
 *
 * Every delivery the worker sends is one of these on a healthy receiver: one round trip instead of
 * a transaction of five keeps the worker's share of the database small beside the requests it
 * shares it with (bench/README.md, `webhooks-signup`).
 */
async function recordDelivered(ctx: Ctx, row: Claimed, endpointId: number, attempts: number, now: Date, outcome: Outcome, durationMs: number): Promise<boolean> {
  const nowText = now.toISOString()
  const { rows } = await sql<{ written: number }>`
    with d as (
      update webhook_deliveries set status = 'delivered', attempts = ${attempts}::int, delivered_at = ${nowText}::timestamptz,
        leased_until = null, last_status = ${outcome.status}::int
      where id = ${row.id} and leased_until = ${row.leased_until.toISOString()}::timestamptz
      returning id
    ), e as (
      update webhook_endpoints set consecutive_failures = 0, failing_since = null
      where id = ${endpointId} and (consecutive_failures <> 0 or failing_since is not null) and exists (select 1 from d)
    ), a as (
      insert into webhook_attempts (delivery_id, endpoint_id, attempted_at, status, duration_ms, error, response_excerpt)
      select d.id, ${endpointId}::int, ${nowText}::timestamptz, ${outcome.status}::int, ${durationMs}::int, ${outcome.error}::text, ${outcome.excerpt}::text from d
    )
    select count(*)::int as written from d`.execute(ctx.db)
  return (rows[0]?.written ?? 0) > 0
}

/** One more failure in a row; switches the endpoint off once the run is long enough in count and in time. */
async function countFailure(ctx: Ctx, trx: Transaction<Database>, endpoint: EndpointSecrets, now: Date): Promise<void> {
  const { disableAfterFailures, disableAfterFailingMs } = ctx.config.webhooks
  const nowText = now.toISOString()
  const cutoff = new Date(now.getTime() - disableAfterFailingMs).toISOString()
  const { rows } = await sql<{ switched: boolean }>`
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
    returning s.off as switched`.execute(trx)
  if (rows[0]?.switched) ctx.log.warn('webhook endpoint disabled: it kept failing', { endpoint: endpoint.public_id })
}
