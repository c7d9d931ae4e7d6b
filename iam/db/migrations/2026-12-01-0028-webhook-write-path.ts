/**
 * The webhook worker's writes made cheaper (features/webhooks/deliver.ts), without changing what is
 * kept.
 *
 * webhook_attempts loses its two foreign keys. Every delivered attempt inserts a row, and each key
 * ran a referential check per row (a lookup with a share lock on the delivery, another on the
 * endpoint): a third of the statement that settles a group of deliveries (EXPLAIN ANALYZE of that
 * statement with ten rows: 0.33 ms of triggers in 1.0 ms), at a thousand deliveries a second a
 * few per cent of a core. The keys guarded nothing the code does not: an attempt is inserted only
 * by the statement that still holds its delivery's lease (so the delivery exists), with its
 * delivery's endpoint; and their cascade, which removed an endpoint's attempts with it, is now the
 * endpoint's deletion itself (features/webhooks/endpoints.ts, deleteEndpoint). An instance of the
 * release before this one that deletes an endpoint during a rolling upgrade leaves that endpoint's
 * attempts behind: rows no query reaches (every read of attempts starts from a live delivery or
 * endpoint).
 *
 * webhook_deliveries loses the unique index on msg_id: nothing looks a delivery up by it, and the
 * value is 'msg_' and a random UUID (122 random bits), so the index only cost an insert at a random
 * place of a B-tree for each of the ten rows an event writes with ten endpoints subscribed.
 */
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table webhook_attempts drop constraint if exists webhook_attempts_delivery_id_fkey`.execute(db)
  await sql`alter table webhook_attempts drop constraint if exists webhook_attempts_endpoint_id_fkey`.execute(db)
  await sql`alter table webhook_deliveries drop constraint if exists webhook_deliveries_msg_id_key`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table webhook_deliveries add constraint webhook_deliveries_msg_id_key unique (msg_id)`.execute(db)
  await sql`delete from webhook_attempts a where not exists (select 1 from webhook_deliveries d where d.id = a.delivery_id)`.execute(db)
  await sql`alter table webhook_attempts add constraint webhook_attempts_endpoint_id_fkey foreign key (endpoint_id) references webhook_endpoints (id) on delete cascade`.execute(db)
  await sql`alter table webhook_attempts add constraint webhook_attempts_delivery_id_fkey foreign key (delivery_id) references webhook_deliveries (id) on delete cascade`.execute(db)
}
