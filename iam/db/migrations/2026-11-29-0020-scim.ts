/**
 * SCIM 2.0 provisioning per organization (features/enterprise/scim-*, docs/scim.md; RFC 7643, RFC 7644).
 *
 * scim_connections: one per organization, the bearer token its identity provider sends. Only the
 * SHA-256 of the token is stored (the token is 256 random bits, so a plain hash is enough: there is
 * nothing to guess a dictionary for). A rotation replaces the hash in place, so the old token stops
 * with the statement that writes the new one; revoking deletes the row.
 *
 * scim_users: the SCIM view of one membership: its SCIM id (a random UUID per organization, so an
 * organization's resource ids say nothing about the account's id elsewhere), the identity
 * provider's externalId (unique per organization where set), and the name attributes as the
 * provider sent them. The account itself is never renamed by a provider that linked it
 * (docs/scim.md): what it sends for someone else's account stays in this row. `version` feeds the
 * ETag (RFC 7644 section 3.14).
 *
 * scim_groups: the externalId a provider gave a group, per organization and role (groups are the
 * organization's roles, docs/scim.md).
 *
 * scim_events: the provisioning log owners read: what a provider did, to whom, when.
 *
 * memberships.deprovisioned_at: set while the identity provider has the person deactivated in the
 * organization. Every statement that reads a membership as access (features/organizations/actor.ts,
 * org-claim.ts, active.ts) skips such a row, so the person is no member for every route, token
 * and claim until the provider reactivates them.
 */
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('scim_connections')
    .addColumn('org_id', 'integer', (c) => c.primaryKey().references('organizations.id').onDelete('cascade'))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('token_hint', 'text', (c) => c.notNull())
    .addColumn('created_by', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('rotated_at', 'timestamptz')
    .addColumn('last_used_at', 'timestamptz')
    .execute()

  await db.schema
    .createTable('scim_users')
    .addColumn('scim_id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('org_id', 'integer', (c) => c.notNull())
    .addColumn('user_id', 'integer', (c) => c.notNull())
    .addColumn('external_id', 'text', (c) => c.check(sql`char_length(external_id) between 1 and 255`))
    .addColumn('given_name', 'text')
    .addColumn('family_name', 'text')
    .addColumn('formatted_name', 'text')
    .addColumn('display_name', 'text')
    .addColumn('version', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .addForeignKeyConstraint('scim_users_membership_fkey', ['org_id', 'user_id'], 'memberships', ['org_id', 'user_id'], (fk) => fk.onDelete('cascade'))
    .addUniqueConstraint('scim_users_org_user_key', ['org_id', 'user_id'])
    .execute()
  await db.schema.createIndex('scim_users_external_id_key').on('scim_users').columns(['org_id', 'external_id']).unique().where('external_id', 'is not', null).execute()

  await db.schema
    .createTable('scim_groups')
    .addColumn('org_id', 'integer', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('external_id', 'text', (c) => c.check(sql`char_length(external_id) between 1 and 255`))
    .addPrimaryKeyConstraint('scim_groups_pkey', ['org_id', 'role'])
    .execute()

  await db.schema
    .createTable('scim_events')
    .addColumn('id', 'serial', (c) => c.primaryKey())
    .addColumn('org_id', 'integer', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('at', 'timestamptz', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('target', 'text')
    .addColumn('details', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .execute()
  await db.schema.createIndex('scim_events_org_idx').on('scim_events').columns(['org_id', 'id']).execute()

  await db.schema.alterTable('memberships').addColumn('deprovisioned_at', 'timestamptz').execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('memberships').dropColumn('deprovisioned_at').execute()
  await db.schema.dropTable('scim_events').execute()
  await db.schema.dropTable('scim_groups').execute()
  await db.schema.dropTable('scim_users').execute()
  await db.schema.dropTable('scim_connections').execute()
}
