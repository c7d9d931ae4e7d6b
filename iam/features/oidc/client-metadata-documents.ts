/**
 * Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document): a client whose id
 * is an https URL is described by the JSON document at that URL, which the provider fetches when
 * the client first shows up. This is how MCP clients and agents sign in without registering first.
 *
 * oidc-provider implements the document's rules (client_id equal to the URL, no shared-secret
 * authentication, https URIs, a 5 KB body, a cache bounded by the document's HTTP caching); the
 * fetch goes through the outbound guard (shared/outbound.ts, via the provider's `fetch`). What is
 * decided here is which hosts may be asked, and which described clients are let in:
 * - a host on `blockedHosts`, or blocked by an administrator from the console (blocked-hosts.ts),
 *   never: neither its document is fetched nor, at every later request, its client let in (the
 *   library asks `allowClient` for its cached documents too); with `allowedHosts` set, only a host
 *   that matches it;
 * - a document may not make itself one of the team's own apps (`first_party`, which skips consent):
 *   such a client is refused, so a client known only by its document always meets the consent page.
 */
import type { IamConfig } from '../../lib/config-schema'

type Settings = IamConfig['oidc']['clientIdMetadataDocuments']

/** `example.com` matches that host only; `*.example.com` any host below it, not example.com itself. */
export function hostMatches(host: string, pattern: string): boolean {
  const name = host.toLowerCase()
  if (pattern.startsWith('*.')) return name.endsWith(pattern.slice(1)) && name.length > pattern.length - 1
  return name === pattern
}

/**
 * Whether the provider may fetch the document of `clientId` under `settings`, with the hosts an
 * administrator blocked (`alsoBlocked`, blocked-hosts.ts).
 */
export function mayFetchDocument(clientId: string, settings: Settings, alsoBlocked: readonly string[] = []): boolean {
  let host: string
  try {
    host = new URL(clientId).hostname
  } catch {
    return false
  }
  if ([...settings.blockedHosts, ...alsoBlocked].some((pattern) => hostMatches(host, pattern))) return false
  return settings.allowedHosts.length === 0 || settings.allowedHosts.some((pattern) => hostMatches(host, pattern))
}

/**
 * The host a client known only by its metadata document is shown by: its https client id's host,
 * or null for anything else (a registered client's id is never a URL).
 */
export function metadataDocumentHost(clientId: string): string | null {
  if (!clientId.startsWith('https://')) return null
  return URL.parse(clientId)?.host ?? null
}

/**
 * oidc-provider's `features.clientIdMetadataDocument` for these settings; `blockedByAdmin` reads
 * the hosts blocked from the console (blocked-hosts.ts: the table, through a short cache).
 */
export function clientIdMetadataDocumentFeature(settings: Settings, blockedByAdmin: () => Promise<readonly string[]> = async () => []) {
  return {
    enabled: settings.enabled,
    // the draft oidc-provider implements; a version that implements another refuses to start
    // until this is checked against it
    ack: 'draft-02',
    allowFetch: async (_ctx: unknown, clientId: string) => mayFetchDocument(clientId, settings, await blockedByAdmin()),
    // asked on every resolve, a cached document's too: the block lists are checked again here, so a
    // document fetched before an administrator's block lets no later request through
    // (`allowedHosts` was decided when the document was fetched, and the configuration does not change)
    allowClient: async (_ctx: unknown, client: Record<string, unknown>) =>
      client['first_party'] !== true && mayFetchDocument(String(client['clientId']), { ...settings, allowedHosts: [] }, await blockedByAdmin()),
  }
}
