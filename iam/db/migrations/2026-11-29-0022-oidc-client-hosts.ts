/**
 * The admin console's view of the OpenID Provider's clients (features/oidc/client-directory.ts).
 *
 * oidc_document_clients: the clients known only by their Client ID Metadata Document
 * (features/oidc/client-metadata-documents.ts). oidc-provider keeps their documents in a process
 * cache and stores nothing for them, and their grants go when a person removes access or the grant
 * expires, so an administrator could not see that such a client had ever come. One row per client
 * id, written when a person first allows it and touched when it is given tokens: its host (as the
 * consent page names it), the name its document gives, when it was first and last seen.
 *
 * oidc_blocked_hosts: metadata-document hosts an administrator blocked at run time, beside the
 * configuration's `oidc.clientIdMetadataDocuments.blockedHosts`. Every instance reads them from
 * here (a cache of a few seconds), so a block holds on all of them. A host name or a
 * `*.example.com` pattern, lower case; `blocked_by` the administrator (null once that account is gone).
 */
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('oidc_document_clients')
    .addColumn('client_id', 'text', (c) => c.primaryKey())
    .addColumn('host', 'text', (c) => c.notNull())
    .addColumn('name', 'text')
    .addColumn('first_seen_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('last_seen_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute()
  await db.schema.createIndex('oidc_document_clients_host_idx').on('oidc_document_clients').column('host').execute()

  await db.schema
    .createTable('oidc_blocked_hosts')
    .addColumn('host', 'text', (c) => c.primaryKey().check(sql`host = lower(host) and length(host) between 1 and 253`))
    .addColumn('blocked_by', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('oidc_blocked_hosts').execute()
  await db.schema.dropTable('oidc_document_clients').execute()
}
