/**
 * Webhook endpoints of an organization (features/webhooks/endpoints.ts, docs/webhooks.md): an
 * endpoint with `organization_id` set belongs to that organization, is managed by its owners
 * (/orgs/:orgId/webhooks) and receives only the events about it: the `organization.*`,
 * `membership.*` and `invitation.*` events whose `data.orgId` is its public id. Null: a platform
 * endpoint, as before (/admin/webhooks), receiving every event it subscribes to.
 *
 * The column holds the organization's public id, the value events carry, so the outbox statement
 * compares it with the event's parameter without a lookup. Deleting the organization deletes its
 * endpoints with their deliveries first (features/organizations/organizations.ts); the cascade is
 * the backstop. The index serves an owner's listing and the cascade.
 */
import type { Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('webhook_endpoints')
    .addColumn('organization_id', 'uuid', (c) => c.references('organizations.public_id').onDelete('cascade'))
    .execute()
  await db.schema.createIndex('webhook_endpoints_organization_idx').on('webhook_endpoints').column('organization_id').where('organization_id', 'is not', null).execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.deleteFrom('webhook_deliveries').where('endpoint_id', 'in', (eb: any) => eb.selectFrom('webhook_endpoints').select('id').where('organization_id', 'is not', null)).execute()
  await db.deleteFrom('webhook_attempts').where('endpoint_id', 'in', (eb: any) => eb.selectFrom('webhook_endpoints').select('id').where('organization_id', 'is not', null)).execute()
  await db.deleteFrom('webhook_endpoints').where('organization_id', 'is not', null).execute()
  await db.schema.dropIndex('webhook_endpoints_organization_idx').execute()
  await db.schema.alterTable('webhook_endpoints').dropColumn('organization_id').execute()
}
