/**
 * Organizations (features/organizations): an organization, its custom roles, its members and the
 * invitations it mailed, and the organization a session acts for.
 *
 * organizations.public_id: what every route and token names an organization by (a random v4 UUID,
 * as users.public_id): the serial key would tell how many organizations exist.
 *
 * memberships.role: 'owner', 'admin', 'member', or the id (a v4 UUID, as text) of one of the
 * organization's organization_roles rows; invitations.role likewise. One row per (organization, user). The last owner rule is kept
 * by the statements that write here (features/organizations/members.ts), not by a constraint: a
 * constraint cannot count rows.
 *
 * invitations.token_hash: SHA-256 of the mailed token (never the token). accepted_at and
 * revoked_at make it single use: one UPDATE ... WHERE accepted_at IS NULL AND revoked_at IS NULL
 * AND expires_at > now RETURNING decides who accepted it. email: normalised (trimmed, lower case).
 *
 * session_families.active_org_id: the organization the session acts for (POST /orgs/active);
 * access tokens minted for the session carry its claim while the user is still a member. Deleting
 * the organization clears it.
 */
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('organizations')
    .addColumn('id', 'serial', (c) => c.primaryKey())
    .addColumn('public_id', 'uuid', (c) => c.notNull().unique().defaultTo(sql`gen_random_uuid()`))
    .addColumn('slug', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute()

  await db.schema
    .createTable('organization_roles')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('org_id', 'integer', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('permissions', sql`text[]`, (c) => c.notNull().defaultTo(sql`'{}'::text[]`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('organization_roles_org_name_key', ['org_id', 'name'])
    .execute()

  await db.schema
    .createTable('memberships')
    .addColumn('org_id', 'integer', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('memberships_pkey', ['org_id', 'user_id'])
    .execute()
  await db.schema.createIndex('memberships_user_idx').on('memberships').column('user_id').execute()

  await db.schema
    .createTable('invitations')
    .addColumn('id', 'serial', (c) => c.primaryKey())
    .addColumn('public_id', 'uuid', (c) => c.notNull().unique().defaultTo(sql`gen_random_uuid()`))
    .addColumn('org_id', 'integer', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('invited_by', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('accepted_at', 'timestamptz')
    .addColumn('revoked_at', 'timestamptz')
    .execute()
  await db.schema.createIndex('invitations_org_idx').on('invitations').column('org_id').execute()

  await db.schema
    .alterTable('session_families')
    .addColumn('active_org_id', 'integer', (c) => c.references('organizations.id').onDelete('set null'))
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('session_families').dropColumn('active_org_id').execute()
  await db.schema.dropTable('invitations').execute()
  await db.schema.dropTable('memberships').execute()
  await db.schema.dropTable('organization_roles').execute()
  await db.schema.dropTable('organizations').execute()
}
