/**
 * The OpenID Provider's clients as the admin console lists them (GET /admin/oidc-clients):
 * - configured: made by the admin CLI (oidc_clients, migration 0009);
 * - registered: by dynamic client registration (RFC 7591), stored in the same table by the
 *   adapter (adapter.ts); oidc-provider gives them `client_id_issued_at` (RFC 7591 section 3.2.1),
 *   which the CLI's clients do not have;
 * - metadata_document: clients known by their Client ID Metadata Document. oidc-provider stores
 *   nothing for them, so they are recorded here when a person allows one and when it gets tokens
 *   (oidc_document_clients, migration 0022); a grant of one from before that table is listed too.
 * Each with how many people hold a grant for it now (the provider's Grant artefacts).
 */
import { sql, type Kysely } from 'kysely'
import type { IamContext } from '../../context'
import type { Database } from '../../db/schema'
import type { BlockedHostView, OidcClientListItem } from '../../contract/oidc-clients'
import { blockedHostPatterns, documentHostName, isHostBlocked, listBlockedHosts } from './blocked-hosts'

/**
 * last_seen_at moves at most once a minute per client: a client refreshing often writes no row per
 * token, and "last seen" reads to the minute in the console anyway.
 */
const SEEN_RESOLUTION = '1 minute'

/** Records that a document client was allowed or given tokens (first and last seen, the name its document gives). */
export async function recordDocumentClientSeen(db: Kysely<Database>, input: { clientId: string; name: string | null; nowMs: number }): Promise<void> {
  const host = documentHostName(input.clientId)
  if (!host) return
  const at = new Date(input.nowMs)
  await db
    .insertInto('oidc_document_clients')
    .values({ client_id: input.clientId, host, name: input.name?.slice(0, 200) ?? null, first_seen_at: at, last_seen_at: at })
    .onConflict((oc) =>
      oc
        .column('client_id')
        .doUpdateSet({ last_seen_at: at, name: sql`excluded.name` })
        .where('oidc_document_clients.last_seen_at', '<', sql<Date>`${at.toISOString()}::timestamptz - ${SEEN_RESOLUTION}::interval`),
    )
    .execute()
}

type Ctx = Pick<IamContext, 'db' | 'config' | 'now'>

const parsed = (value: unknown) => (typeof value === 'string' ? JSON.parse(value) : value) as Record<string, unknown>

/** Every client, configured and registered ones first (oldest first), then document clients by host. */
export async function listOidcClients(ctx: Ctx): Promise<{ clients: OidcClientListItem[]; blockedHosts: BlockedHostView[] }> {
  const now = new Date(ctx.now())
  const [registered, documents, grants, adminBlocked, blockedHosts] = await Promise.all([
    ctx.db.selectFrom('oidc_clients').select(['client_id', 'metadata', 'created_at']).orderBy('created_at').orderBy('client_id').execute(),
    ctx.db.selectFrom('oidc_document_clients').select(['client_id', 'name', 'first_seen_at', 'last_seen_at']).execute(),
    ctx.db
      .selectFrom('oidc_payloads')
      .select([sql<string>`payload->>'clientId'`.as('clientId'), sql<string>`count(distinct account_id)`.as('people')])
      .where('model', '=', 'Grant')
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
      .groupBy(sql`payload->>'clientId'`)
      .execute(),
    blockedHostPatterns(ctx.db, ctx.now()),
    listBlockedHosts(ctx),
  ])
  const people = new Map(grants.map((g) => [g.clientId, Number(g.people)]))
  const blockPatterns = [...ctx.config.oidc.clientIdMetadataDocuments.blockedHosts, ...adminBlocked]

  const clients: OidcClientListItem[] = registered.map((row) => {
    const metadata = parsed(row.metadata)
    return {
      kind: metadata.client_id_issued_at === undefined ? 'configured' : 'registered',
      clientId: row.client_id,
      name: typeof metadata.client_name === 'string' && metadata.client_name ? metadata.client_name : row.client_id,
      host: null,
      firstSeenAt: row.created_at.toISOString(),
      lastSeenAt: null,
      people: people.get(row.client_id) ?? 0,
      blocked: false,
    }
  })
  const stored = new Set(registered.map((r) => r.client_id))
  const seen = new Map(documents.map((d) => [d.client_id, d]))
  // a document client with a grant from before it was recorded is still one people allowed
  const documentIds = new Set([...seen.keys(), ...[...people.keys()].filter((id) => !stored.has(id) && documentHostName(id) !== null)])
  const documentClients = [...documentIds].map((clientId): OidcClientListItem => {
    const row = seen.get(clientId)
    const host = documentHostName(clientId)!
    return {
      kind: 'metadata_document',
      clientId,
      name: row?.name || host,
      host,
      firstSeenAt: row ? row.first_seen_at.toISOString() : null,
      lastSeenAt: row ? row.last_seen_at.toISOString() : null,
      people: people.get(clientId) ?? 0,
      blocked: isHostBlocked(clientId, blockPatterns),
    }
  })
  documentClients.sort((a, b) => a.host!.localeCompare(b.host!) || a.clientId.localeCompare(b.clientId))
  return { clients: [...clients, ...documentClients], blockedHosts }
}
