/**
 * The initial schema. Migrations take Kysely<any>, import no app code and are never edited once
 * landed: change the schema with a new dated file.
 */
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('users')
    .addColumn('id', 'integer', (c) => c.primaryKey().generatedAlwaysAsIdentity())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    // null for accounts that only sign in through a provider
    .addColumn('password_hash', 'text')
    .addColumn('email_verified', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('terms_consent', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('roles', 'jsonb', (c) => c.notNull().defaultTo(sql`'["user"]'::jsonb`))
    .addColumn('banned_until', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute()
  // One account per address, whatever its case: the invariant lives in SQL, not in a pre-check.
  await sql`create unique index users_email_lower_key on users (lower(email))`.execute(db)

  await db.schema
    .createTable('oauth_identities')
    .addColumn('id', 'integer', (c) => c.primaryKey().generatedAlwaysAsIdentity())
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('provider_user_id', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('email_verified', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('profile', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('last_login_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('oauth_identities_provider_user_key', ['provider', 'provider_user_id'])
    .execute()
  await db.schema.createIndex('oauth_identities_user_idx').on('oauth_identities').column('user_id').execute()

  // A device: what the canary_id cookie names. visitor_id is the public handle used in links.
  await db.schema
    .createTable('visitors')
    .addColumn('id', 'integer', (c) => c.primaryKey().generatedAlwaysAsIdentity())
    .addColumn('canary_id', 'text', (c) => c.notNull().unique())
    .addColumn('visitor_id', 'text', (c) => c.notNull().unique())
    .addColumn('ip_address', 'text')
    .addColumn('user_agent', 'text')
    .addColumn('fingerprint', 'jsonb')
    .addColumn('score', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('banned_until', 'timestamptz')
    .addColumn('first_seen', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('last_seen', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute()

  // One login = one family; its id is the access token's `sid`.
  await db.schema
    .createTable('session_families')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('visitor_id', 'integer', (c) => c.notNull().references('visitors.id').onDelete('cascade'))
    .addColumn('remember', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('ip_address', 'text')
    .addColumn('fingerprint', 'jsonb')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('last_seen', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('last_mfa_at', 'timestamptz')
    .addColumn('revoked_at', 'timestamptz')
    .addColumn('revoked_reason', 'text')
    .execute()
  await sql`create index session_families_live_user_idx on session_families (user_id, created_at) where revoked_at is null`.execute(db)

  // Refresh tokens: only their SHA-256 is stored. A used token presented again is reuse.
  await db.schema
    .createTable('refresh_tokens')
    .addColumn('id', 'integer', (c) => c.primaryKey().generatedAlwaysAsIdentity())
    .addColumn('family_id', 'text', (c) => c.notNull().references('session_families.id').onDelete('cascade'))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('active').check(sql`status in ('active', 'rotated', 'revoked')`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('used_at', 'timestamptz')
    .addColumn('replaced_by', 'integer')
    .execute()
  // At most one live token per family: rotation cannot fork a family, even under concurrency.
  await sql`create unique index refresh_tokens_one_active_per_family on refresh_tokens (family_id) where status = 'active'`.execute(db)
  // Every rotation keeps its old row: revoking or deleting a family must not scan the whole table.
  await db.schema.createIndex('refresh_tokens_family_idx').on('refresh_tokens').column('family_id').execute()

  await db.schema
    .createTable('api_tokens')
    .addColumn('id', 'integer', (c) => c.primaryKey().generatedAlwaysAsIdentity())
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('prefix', 'text', (c) => c.notNull().defaultTo('api'))
    .addColumn('hashed_token', 'text', (c) => c.notNull().unique())
    .addColumn('public_identifier', 'text', (c) => c.notNull().unique())
    .addColumn('privilege_type', 'text', (c) =>
      c.notNull().check(sql`privilege_type in ('demo', 'restricted', 'protected', 'full', 'custom')`),
    )
    .addColumn('valid', 'smallint', (c) => c.notNull().defaultTo(1).check(sql`valid in (0, 1)`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('expires_at', 'timestamptz')
    .addColumn('restricted_to_ip_address', 'jsonb')
    .addColumn('last_used', 'timestamptz')
    .addColumn('usage_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('rotated_to', 'integer')
    .execute()
  await sql`create index api_tokens_valid_user_idx on api_tokens (user_id) where valid = 1`.execute(db)

  // Magic links: the JWT's jti is the key; only the SHA-256 of `random` is kept.
  await db.schema
    .createTable('magic_links')
    .addColumn('jti', 'text', (c) => c.primaryKey())
    .addColumn('purpose', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('family_id', 'text', (c) => c.references('session_families.id').onDelete('cascade'))
    .addColumn('visitor', 'text', (c) => c.notNull())
    .addColumn('random_hash', 'text', (c) => c.notNull())
    .addColumn('data', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('previews', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('consumed_at', 'timestamptz')
    .execute()
  await sql`create index magic_links_live_idx on magic_links (user_id, purpose) where consumed_at is null`.execute(db)

  // One-time codes: stored as HMAC-SHA256 under a server secret, one per link.
  await db.schema
    .createTable('mfa_codes')
    .addColumn('id', 'integer', (c) => c.primaryKey().generatedAlwaysAsIdentity())
    .addColumn('link_jti', 'text', (c) => c.notNull().unique().references('magic_links.jti').onDelete('cascade'))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('family_id', 'text', (c) => c.references('session_families.id').onDelete('cascade'))
    .addColumn('code_hmac', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('used_at', 'timestamptz')
    .execute()

  // Access-token signing keys (dev profile: generated once and kept here; production: config).
  await db.schema
    .createTable('signing_keys')
    .addColumn('kid', 'text', (c) => c.primaryKey())
    .addColumn('alg', 'text', (c) => c.notNull())
    .addColumn('private_jwk', 'jsonb', (c) => c.notNull())
    .addColumn('public_jwk', 'jsonb', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    // a retired key no longer signs; it verifies until the tokens it signed have expired
    .addColumn('retired_at', 'timestamptz')
    .execute()

  await db.schema
    .createTable('security_events')
    .addColumn('id', 'integer', (c) => c.primaryKey().generatedAlwaysAsIdentity())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('user_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('visitor_id', 'integer', (c) => c.references('visitors.id').onDelete('set null'))
    .addColumn('ip_address', 'text')
    .addColumn('details', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute()
  await db.schema.createIndex('security_events_user_idx').on('security_events').columns(['user_id', 'created_at']).execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of [
    'security_events', 'signing_keys', 'mfa_codes', 'magic_links', 'api_tokens',
    'refresh_tokens', 'session_families', 'visitors', 'oauth_identities', 'users',
  ]) {
    await db.schema.dropTable(table).ifExists().execute()
  }
}
