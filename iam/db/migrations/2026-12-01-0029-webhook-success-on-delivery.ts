/**
 * A delivered webhook's write made smaller again (features/webhooks/deliver.ts, writeDelivered).
 *
 * The attempt that delivers a delivery is kept on the delivery row itself (`delivered_at`,
 * `last_status`, and the new `last_duration_ms` and `last_excerpt`) instead of a webhook_attempts
 * row: the statement that settles a group of deliveries updated each delivery and inserted an
 * attempt beside it, and the insert, a heap tuple and three index entries per delivery, was
 * nearly half of that statement's buffers (EXPLAIN ANALYZE in the bench's login row with ten
 * endpoints: 91 of 204 for six deliveries). webhook_attempts keeps every attempt that did not
 * deliver; the delivery log reads the delivering one from the row (features/webhooks/deliveries.ts),
 * and a replay of a delivered delivery first moves that attempt into webhook_attempts, so the log
 * loses nothing. A delivered row of an earlier release has `last_duration_ms` null: its delivering
 * attempt is in webhook_attempts already.
 *
 * webhook_deliveries loses its foreign key to webhook_endpoints. Each of the ten rows an event
 * writes with ten endpoints subscribed ran a referential check that share-locked its endpoint's
 * row, so every concurrent sign-in locked the same ten rows (a 10-row outbox insert under eight
 * clients: 8,400-8,800 a second with the key, 10,200-10,400 without, pgbench). The insert reads
 * the endpoints it writes for in the same statement, and an endpoint's deletion now deletes its
 * deliveries itself (features/webhooks/endpoints.ts, deleteEndpoint). A delivery written by a
 * statement that read an endpoint just before its deletion committed is left behind: a row no
 * query reaches (a claim, the log and the queue figures all start from a live endpoint), as is
 * every delivery of an endpoint an instance of the release before this one deletes during a
 * rolling upgrade.
 */
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('webhook_deliveries').addColumn('last_duration_ms', 'integer').execute()
  await db.schema.alterTable('webhook_deliveries').addColumn('last_excerpt', 'text').execute()
  await sql`alter table webhook_deliveries drop constraint if exists webhook_deliveries_endpoint_id_fkey`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`delete from webhook_deliveries d where not exists (select 1 from webhook_endpoints e where e.id = d.endpoint_id)`.execute(db)
  await sql`alter table webhook_deliveries add constraint webhook_deliveries_endpoint_id_fkey foreign key (endpoint_id) references webhook_endpoints (id) on delete cascade`.execute(db)
  await sql`
    insert into webhook_attempts (delivery_id, endpoint_id, attempted_at, status, duration_ms, error, response_excerpt)
    select id, endpoint_id, delivered_at, last_status, last_duration_ms, null, last_excerpt from webhook_deliveries
    where status = 'delivered' and last_duration_ms is not null
    order by id`.execute(db)
  await db.schema.alterTable('webhook_deliveries').dropColumn('last_excerpt').execute()
  await db.schema.alterTable('webhook_deliveries').dropColumn('last_duration_ms').execute()
}
