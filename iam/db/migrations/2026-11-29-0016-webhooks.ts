/**
 * Signed webhooks (features/webhooks, docs/webhooks.md): endpoints, the outbox of deliveries and
 * the log of attempts.
 *
 * webhook_endpoints: where events go. `event_types` is a JSON array of catalogue types and
 * wildcards (`user.*`, `*`), matched with `?|` by the outbox insert. The signing secret is sealed
 * at rest (AES-256-GCM under secrets.totpKeys, the endpoint's public id as additional data); after
 * a rotation the previous one keeps signing beside it until `previous_secret_expires_at`.
 * `consecutive_failures` and `failing_since` decide when a failing endpoint is disabled.
 *
 * webhook_deliveries: the outbox. A row is written in the transaction of the change it reports, so
 * a change that rolls back leaves none and one that commits cannot lose its event. `msg_id` is the
 * `webhook-id` a receiver deduplicates on, the same on every retry. A worker takes due rows
 * (`next_attempt_at`) for `leased_until` with `FOR UPDATE SKIP LOCKED`: a row held by an instance
 * that died is taken again once its lease ran out. `account_key` (the account's public id) keeps
 * one account's events in order per endpoint. The partial index serves the worker's scan.
 *
 * webhook_attempts: one row per request made: status (null when no answer came), duration, the
 * refusal or network error, and a bounded excerpt of the answer.
 */
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('webhook_endpoints')
    .addColumn('id', 'serial', (c) => c.primaryKey())
    .addColumn('public_id', 'text', (c) => c.notNull().unique())
    .addColumn('url', 'text', (c) => c.notNull().check(sql`char_length(url) between 1 and 2048`))
    .addColumn('description', 'text', (c) => c.notNull().defaultTo('').check(sql`char_length(description) <= 500`))
    .addColumn('event_types', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('enabled', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('disabled_reason', 'text')
    .addColumn('secret_sealed', 'text', (c) => c.notNull())
    .addColumn('previous_secret_sealed', 'text')
    .addColumn('previous_secret_expires_at', 'timestamptz')
    .addColumn('consecutive_failures', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('failing_since', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .execute()

  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'serial', (c) => c.primaryKey())
    .addColumn('msg_id', 'text', (c) => c.notNull().unique())
    .addColumn('endpoint_id', 'integer', (c) => c.notNull().references('webhook_endpoints.id').onDelete('cascade'))
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('account_key', 'text')
    .addColumn('payload', 'jsonb', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('pending').check(sql`status in ('pending', 'delivered', 'dead')`))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'timestamptz', (c) => c.notNull())
    .addColumn('leased_until', 'timestamptz')
    .addColumn('last_status', 'integer')
    .addColumn('delivered_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('webhook_deliveries_due_idx')
    .on('webhook_deliveries')
    .columns(['next_attempt_at', 'id'])
    .where(sql.ref('status'), '=', 'pending')
    .execute()
  await db.schema.createIndex('webhook_deliveries_endpoint_idx').on('webhook_deliveries').columns(['endpoint_id', 'created_at']).execute()
  await db.schema
    .createIndex('webhook_deliveries_account_idx')
    .on('webhook_deliveries')
    .columns(['endpoint_id', 'account_key', 'id'])
    .where(sql.ref('status'), '=', 'pending')
    .execute()

  await db.schema
    .createTable('webhook_attempts')
    .addColumn('id', 'serial', (c) => c.primaryKey())
    .addColumn('delivery_id', 'integer', (c) => c.notNull().references('webhook_deliveries.id').onDelete('cascade'))
    .addColumn('endpoint_id', 'integer', (c) => c.notNull().references('webhook_endpoints.id').onDelete('cascade'))
    .addColumn('attempted_at', 'timestamptz', (c) => c.notNull())
    .addColumn('status', 'integer')
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('error', 'text')
    .addColumn('response_excerpt', 'text')
    .execute()
  await db.schema.createIndex('webhook_attempts_delivery_idx').on('webhook_attempts').columns(['delivery_id', 'id']).execute()
  await db.schema.createIndex('webhook_attempts_endpoint_idx').on('webhook_attempts').columns(['endpoint_id', 'attempted_at']).execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('webhook_attempts').execute()
  await db.schema.dropTable('webhook_deliveries').execute()
  await db.schema.dropTable('webhook_endpoints').execute()
}
