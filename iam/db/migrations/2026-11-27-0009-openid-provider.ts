/**
 * The OpenID Provider (features/oidc): its clients, its artefacts, its dev signing keys, and the
 * public id its tokens name an account by.
 *
 * session_families.sign_in_amr: how the session's sign-in was made, as RFC 8176 method references
 * separated by spaces ("pwd", "pwd otp mfa", "hwk user mfa"): an app's ID token says it (`amr`).
 * Null for sessions opened before, or by a way that has no reference (an external provider).
 *
 * users.public_id: the `sub` of every ID token, access token and userinfo answer. Never the serial
 * key: a serial key tells how many accounts exist and who signed up before whom. Random (v4 UUID),
 * filled by the database for new rows, stable for the life of the account.
 *
 * oidc_payloads: every artefact the provider stores (sessions, interactions, grants, codes, tokens,
 * device codes, PAR requests), one row each, keyed by model and id; the provider's payload as JSON.
 * The columns beside it are what the provider looks artefacts up by (grant_id to revoke a grant's
 * tokens, user_code for the device flow, uid for sessions) and what the account events look them
 * up by (account_id: sign out everywhere, a password change or a ban end the account's grants).
 * consumed_at makes a code or a rotated refresh token single use: one UPDATE ... WHERE consumed_at
 * IS NULL decides who redeemed it.
 *
 * oidc_clients: the registered relying parties (admin CLI clients:*). The secret is sealed at rest
 * like TOTP secrets (lib/aead.ts); the metadata is the provider's client metadata without it.
 *
 * oidc_signing_keys: the dev profile's generated ID-token keys, kept here so every instance and
 * every restart signs with the same key. Production takes them from secrets.oidcKeys instead.
 */
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('users').addColumn('public_id', 'uuid', (c) => c.notNull().defaultTo(sql`gen_random_uuid()`)).execute()
  await db.schema.createIndex('users_public_id_key').unique().on('users').column('public_id').execute()
  await db.schema.alterTable('session_families').addColumn('sign_in_amr', 'text').execute()

  await db.schema
    .createTable('oidc_payloads')
    .addColumn('model', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('payload', 'jsonb', (c) => c.notNull())
    .addColumn('grant_id', 'text')
    .addColumn('user_code', 'text')
    .addColumn('uid', 'text')
    .addColumn('account_id', 'text')
    .addColumn('expires_at', 'timestamptz')
    .addColumn('consumed_at', 'timestamptz')
    .addPrimaryKeyConstraint('oidc_payloads_pkey', ['model', 'id'])
    .execute()
  await db.schema.createIndex('oidc_payloads_grant_idx').on('oidc_payloads').column('grant_id').where('grant_id', 'is not', null).execute()
  await db.schema.createIndex('oidc_payloads_user_code_idx').on('oidc_payloads').columns(['model', 'user_code']).where('user_code', 'is not', null).execute()
  await db.schema.createIndex('oidc_payloads_uid_idx').on('oidc_payloads').columns(['model', 'uid']).where('uid', 'is not', null).execute()
  await db.schema.createIndex('oidc_payloads_account_idx').on('oidc_payloads').column('account_id').where('account_id', 'is not', null).execute()
  await db.schema.createIndex('oidc_payloads_expires_idx').on('oidc_payloads').column('expires_at').execute()

  await db.schema
    .createTable('oidc_clients')
    .addColumn('client_id', 'text', (c) => c.primaryKey())
    .addColumn('metadata', 'jsonb', (c) => c.notNull())
    .addColumn('secret_sealed', 'text')
    .addColumn('first_party', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute()

  await db.schema
    .createTable('oidc_signing_keys')
    .addColumn('kid', 'text', (c) => c.primaryKey())
    .addColumn('private_jwk', 'jsonb', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('oidc_signing_keys').execute()
  await db.schema.dropTable('oidc_clients').execute()
  await db.schema.dropTable('oidc_payloads').execute()
  await db.schema.alterTable('session_families').dropColumn('sign_in_amr').execute()
  await db.schema.alterTable('users').dropColumn('public_id').execute()
}
