/**
 * Webhook endpoints as the admin API and CLI manage the platform's, and an organization's owners
 * their organization's (endpoints-repo.ts EndpointScope, migration 0030): add (the secret shown
 * once), change, remove, rotate the secret with an overlap, and queue a test event. Every function
 * takes the scope and reaches no endpoint outside it. Every change reloads this
 * instance's subscription snapshot at once (subscriptions.ts); other instances read it on their
 * next poll.
 */
import { randomBytes } from 'node:crypto'
import type { IamContext } from '../../context'
import { mayLag } from '../../db/replicas'
import type { EndpointView } from '../../contract/webhook-events'
import { WEBHOOK_CATALOGUE_VERSION } from '../../contract/webhooks'
import { outboundPolicyOf } from './policy'
import { deleteWithLogs, endpointRowId, inScope, selectEndpoints, selectSubscribedPatterns, type EndpointRow, type EndpointScope } from './endpoints-repo'
import { enqueueWebhookEvent } from './outbox'
import { newWebhookSecret, sealWebhookSecret } from './secret'
import { rememberSubscriptions } from './subscriptions'
import { checkEndpointUrl } from './url-check'

type Ctx = Pick<IamContext, 'config' | 'db' | 'now'>

export interface EndpointInput {
  url: string
  eventTypes: string[]
  description?: string
  enabled?: boolean
}

export type { EndpointView, EndpointScope }

export type EndpointResult =
  | { ok: true; endpoint: EndpointView; secret?: string }
  | { ok: false; code: 'webhook_url_refused'; message: string }
  | { ok: false; code: 'webhook_not_found' }
  // the organization was deleted after its owner's check and before the endpoint's insert
  | { ok: false; code: 'org_not_found' }

/** A foreign key's refusal (SQLSTATE 23503), as PostgreSQL and PGlite report it. */
const isForeignKeyViolation = (error: unknown) => typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '23503'

const NOT_FOUND = { ok: false, code: 'webhook_not_found' } as const

/** `ep_` + 128 random bits, base64url: the id the API names an endpoint by (the serial id stays inside). */
const newEndpointId = () => `ep_${randomBytes(16).toString('base64url')}`

function viewOf(row: EndpointRow, now: Date): EndpointView {
  const overlap = row.previous_secret_expires_at && row.previous_secret_expires_at > now ? row.previous_secret_expires_at.toISOString() : null
  return {
    id: row.public_id,
    url: row.url,
    description: row.description,
    eventTypes: row.event_types,
    enabled: row.enabled,
    disabledReason: row.enabled ? null : ((row.disabled_reason ?? 'admin') as EndpointView['disabledReason']),
    previousSecretUntil: overlap,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    stats: {
      attempts24h: row.attempts24h,
      succeeded24h: row.succeeded24h,
      successRate24h: row.attempts24h === 0 ? null : row.succeeded24h / row.attempts24h,
      pending: row.pending,
      dead: row.dead,
    },
  }
}

/** Reads what the enabled endpoints subscribe to into this instance's snapshot. */
export async function reloadSubscriptions(ctx: Ctx): Promise<void> {
  // trusted for three polls: a worker that stops updating it falls back to asking the database
  rememberSubscriptions(await selectSubscribedPatterns(ctx.db), 3 * ctx.config.webhooks.pollMs)
}

export async function listEndpoints(ctx: Ctx, scope: EndpointScope): Promise<{ endpoints: EndpointView[]; catalogueVersion: string }> {
  const now = new Date(ctx.now())
  // may lag: the listing an administrator browses (the delivery worker reads the primary)
  return { endpoints: (await selectEndpoints(mayLag(ctx.db), now, scope)).map((row) => viewOf(row, now)), catalogueVersion: WEBHOOK_CATALOGUE_VERSION }
}

export async function readEndpoint(ctx: Ctx, scope: EndpointScope, publicId: string): Promise<EndpointView | null> {
  const now = new Date(ctx.now())
  const [row] = await selectEndpoints(ctx.db, now, scope, publicId)
  return row ? viewOf(row, now) : null
}

const uniquePatterns = (types: string[]) => [...new Set(types)]

export async function createEndpoint(ctx: Ctx, scope: EndpointScope, input: EndpointInput): Promise<EndpointResult> {
  const checked = await checkEndpointUrl(input.url, outboundPolicyOf(ctx.config, scope.kind))
  if (!checked.ok) return { ok: false, code: 'webhook_url_refused', message: checked.message }
  const publicId = newEndpointId()
  const secret = newWebhookSecret()
  const now = new Date(ctx.now())
  const enabled = input.enabled ?? true
  try {
    await ctx.db
      .insertInto('webhook_endpoints')
      .values({
        public_id: publicId,
        url: checked.url,
        description: input.description ?? '',
        event_types: JSON.stringify(uniquePatterns(input.eventTypes)),
        enabled,
        disabled_reason: enabled ? null : 'admin',
        secret_sealed: sealWebhookSecret(ctx.config.secrets.totpKeys, publicId, secret),
        organization_id: scope.kind === 'organization' ? scope.organizationId : null,
        created_at: now,
        updated_at: now,
      })
      .execute()
  } catch (error) {
    // an organization deleted meanwhile (its owners' check passed, its deletion committed since): as
    // if it had been gone at the check
    if (scope.kind === 'organization' && isForeignKeyViolation(error)) return { ok: false, code: 'org_not_found' }
    throw error
  }
  await reloadSubscriptions(ctx)
  const endpoint = await readEndpoint(ctx, scope, publicId)
  return { ok: true, endpoint: endpoint!, secret }
}

/** Replaces URL, types and description; `enabled` switches it on (failures forgotten) or off. */
export async function updateEndpoint(ctx: Ctx, scope: EndpointScope, publicId: string, input: EndpointInput): Promise<EndpointResult> {
  const checked = await checkEndpointUrl(input.url, outboundPolicyOf(ctx.config, scope.kind))
  if (!checked.ok) return { ok: false, code: 'webhook_url_refused', message: checked.message }
  const now = new Date(ctx.now())
  let update = ctx.db
    .updateTable('webhook_endpoints')
    .set({ url: checked.url, event_types: JSON.stringify(uniquePatterns(input.eventTypes)), updated_at: now })
    .where('public_id', '=', publicId)
    .where(inScope(scope))
  if (input.description !== undefined) update = update.set({ description: input.description })
  if (input.enabled === true) update = update.set({ enabled: true, disabled_reason: null, consecutive_failures: 0, failing_since: null })
  if (input.enabled === false) update = update.set({ enabled: false, disabled_reason: 'admin' })
  const result = await update.executeTakeFirst()
  if (result.numUpdatedRows === 0n) return NOT_FOUND
  await reloadSubscriptions(ctx)
  return { ok: true, endpoint: (await readEndpoint(ctx, scope, publicId))! }
}

/**
 * The endpoint, its deliveries and its attempts, together (no foreign key cascades to either:
 * migrations 0028 and 0029). The attempts go in a statement after the deliveries': a delivery
 * being settled or failed meanwhile holds its row, which that delete waits for, so by then the
 * attempt the failure wrote has committed and the last statement sees it; a settling that comes
 * later finds no delivery and writes nothing.
 */
export async function deleteEndpoint(ctx: Ctx, scope: EndpointScope, publicId: string): Promise<boolean> {
  const deleted = await ctx.db.transaction().execute(async (trx) => (await deleteWithLogs(trx, scope, publicId)) > 0)
  await reloadSubscriptions(ctx)
  return deleted
}

/**
 * A new secret; the current one becomes the previous and signs beside it until the overlap ends
 * (a previous secret still in its overlap is dropped: two live secrets at most).
 */
export async function rotateEndpointSecret(ctx: Ctx, scope: EndpointScope, publicId: string): Promise<EndpointResult> {
  const secret = newWebhookSecret()
  const now = new Date(ctx.now())
  const result = await ctx.db
    .updateTable('webhook_endpoints')
    .set((eb) => ({
      previous_secret_sealed: eb.ref('secret_sealed'),
      previous_secret_expires_at: new Date(now.getTime() + ctx.config.webhooks.secretOverlapMs),
      secret_sealed: sealWebhookSecret(ctx.config.secrets.totpKeys, publicId, secret),
      updated_at: now,
    }))
    .where('public_id', '=', publicId)
    .where(inScope(scope))
    .executeTakeFirst()
  if (result.numUpdatedRows === 0n) return NOT_FOUND
  return { ok: true, endpoint: (await readEndpoint(ctx, scope, publicId))!, secret }
}

/** Queues a `webhook.test` event for this endpoint alone; null when there is no such endpoint. */
export async function queueTestEvent(ctx: Ctx, scope: EndpointScope, publicId: string): Promise<{ deliveryId: number; msgId: string } | null> {
  const id = await endpointRowId(ctx.db, scope, publicId)
  if (id === null) return null
  const [row] = await enqueueWebhookEvent(ctx.db, { type: 'webhook.test', subject: null, data: { endpointId: publicId }, at: new Date(ctx.now()), endpointId: id })
  return row ? { deliveryId: row.id, msgId: row.msg_id } : null
}
