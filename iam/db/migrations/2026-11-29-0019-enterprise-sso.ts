/**
 * Enterprise sign-in (features/enterprise, docs/enterprise.md): the domains an organization claims
 * and proves by a DNS TXT record, its SAML 2.0 connection to an identity provider, and the
 * identities that connection signed in, keyed by (connection, NameID) and never by address.
 *
 * A domain is unique among the verified ones (a partial unique index): two organizations may each
 * start to claim `example.com`, only the first to prove it holds it, and a verified domain can never
 * be verified a second time elsewhere, whatever the race between two verifications.
 */
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('org_domains')
    .addColumn('id', 'serial', (c) => c.primaryKey())
    .addColumn('public_id', 'uuid', (c) => c.notNull().unique().defaultTo(sql`gen_random_uuid()`))
    .addColumn('org_id', 'integer', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('domain', 'text', (c) => c.notNull())
    .addColumn('token', 'text', (c) => c.notNull())
    .addColumn('verified_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('org_domains_org_domain_key', ['org_id', 'domain'])
    .execute()
  await sql`create unique index org_domains_verified_domain_idx on org_domains (domain) where verified_at is not null`.execute(db)

  await db.schema
    .createTable('saml_connections')
    .addColumn('id', 'serial', (c) => c.primaryKey())
    .addColumn('public_id', 'uuid', (c) => c.notNull().unique().defaultTo(sql`gen_random_uuid()`))
    // one connection per organization
    .addColumn('org_id', 'integer', (c) => c.notNull().unique().references('organizations.id').onDelete('cascade'))
    .addColumn('idp_entity_id', 'text', (c) => c.notNull())
    .addColumn('idp_sso_url', 'text', (c) => c.notNull())
    // PEM certificates (one, or two while the provider rolls its key)
    .addColumn('idp_certs', 'jsonb', (c) => c.notNull())
    .addColumn('default_role', 'text', (c) => c.notNull().defaultTo('member'))
    .addColumn('attribute_mapping', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('allow_idp_initiated', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('enabled', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('require_sso', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute()

  await db.schema
    .createTable('saml_identities')
    .addColumn('id', 'serial', (c) => c.primaryKey())
    .addColumn('connection_id', 'integer', (c) => c.notNull().references('saml_connections.id').onDelete('cascade'))
    .addColumn('name_id', 'text', (c) => c.notNull())
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('email', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('last_login_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('saml_identities_connection_name_id_key', ['connection_id', 'name_id'])
    .execute()
  await db.schema.createIndex('saml_identities_user_idx').on('saml_identities').column('user_id').execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('saml_identities').execute()
  await db.schema.dropTable('saml_connections').execute()
  await db.schema.dropTable('org_domains').execute()
}
