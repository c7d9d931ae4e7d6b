/**
 * The OpenID Provider's clients as an administrator sees them (features/oidc/client-directory.ts,
 * docs/oidc-provider.md "The console"): every client the provider knows of, and the
 * metadata-document hosts blocked at run time. Admin routes: full authentication, `platform-admin`
 * and `recent-sign-in` (contract/admin.ts).
 */
import { z } from 'zod'
import { ADMIN, ADMIN_GUARDS } from './admin'
import { defineRoutes, json, noBody } from './define'
import { errorFail, failure, JSON_BODY_FIELDS, okData, responses } from './responses'
import { HOST_PATTERN_MESSAGE, HOST_PATTERN_RE } from './host-pattern'

/** How the provider came to know a client. */
export type OidcClientKind = 'configured' | 'registered' | 'metadata_document'

/** One client in the console's list (GET /admin/oidc-clients). */
export interface OidcClientListItem {
  kind: OidcClientKind
  clientId: string
  /** the registered name; for a document client the name its document gives (its own claim), else its host */
  name: string
  /** a document client's host name (what a block names, without a port); null for the others */
  host: string | null
  /** a document client: when a person first allowed it and when it last got tokens; else when it was created (and null) */
  firstSeenAt: string | null
  lastSeenAt: string | null
  /** how many people hold a grant for it now */
  people: number
  /** a document client whose host is blocked (configuration or console): it gets no token */
  blocked: boolean
}

/** A blocked metadata-document host: by the configuration (lifted only there) or by an administrator. */
export interface BlockedHostView {
  host: string
  source: 'config' | 'admin'
  /** when an administrator blocked it; null for the configuration's */
  blockedAt: string | null
}

const host = z
  .string({ error: `host: ${HOST_PATTERN_MESSAGE}` })
  .trim()
  .toLowerCase()
  .max(253, `host: ${HOST_PATTERN_MESSAGE}`)
  .regex(HOST_PATTERN_RE, `host: ${HOST_PATTERN_MESSAGE}`)

const clientView = z.object({
  kind: z.enum(['configured', 'registered', 'metadata_document']).describe('configured: made by the admin CLI; registered: by dynamic client registration (RFC 7591); metadata_document: known by its Client ID Metadata Document'),
  clientId: z.string(),
  name: z.string(),
  host: z.string().nullable(),
  firstSeenAt: z.string().nullable(),
  lastSeenAt: z.string().nullable(),
  people: z.number().int().describe('how many people hold a grant for the client'),
  blocked: z.boolean(),
})
const blockedView = z.object({ host: z.string(), source: z.enum(['config', 'admin']), blockedAt: z.string().nullable() })

const ADMIN_ROUTE = { auth: 'full', guards: ADMIN_GUARDS, limiters: [] } as const

export const OIDC_CLIENT_ROUTES = defineRoutes({
  adminOidcClients: {
    ...ADMIN_ROUTE,
    method: 'GET',
    path: '/admin/oidc-clients',
    summary: 'Every client of the OpenID Provider (configured, registered, known by its metadata document) and the blocked document hosts',
    request: noBody,
    responses: responses({ 200: { description: 'the clients', body: okData(z.object({ clients: z.array(clientView), blockedHosts: z.array(blockedView) })) } }, ADMIN),
  },
  adminOidcHostBlock: {
    ...ADMIN_ROUTE,
    method: 'POST',
    path: '/admin/oidc-clients/blocked-hosts',
    summary: "Block a metadata-document host on every instance: its clients get no token, and their people's grants are revoked",
    request: json(),
    body: z.strictObject({ host }),
    responses: responses(
      { 200: { description: 'blocked (again: the same answer)', body: okData(z.object({ host: z.string(), revokedGrants: z.number().int() })) } },
      JSON_BODY_FIELDS,
      ADMIN,
    ),
  },
  adminOidcHostUnblock: {
    ...ADMIN_ROUTE,
    method: 'DELETE',
    path: '/admin/oidc-clients/blocked-hosts/:host',
    summary: 'Lift an administrator’s block of a host (grants revoked by the block stay revoked)',
    request: noBody,
    params: z.object({ host }),
    responses: responses(
      { 200: { description: 'unblocked', body: okData(z.object({ host: z.string() })) } },
      {
        400: failure('Not a host (`fields.host`)', errorFail, 'validation_failed'),
        404: failure('The host is not blocked from the console', errorFail, 'client_host_not_blocked'),
        409: failure('The host is blocked by the configuration (`oidc.clientIdMetadataDocuments.blockedHosts`): only there can it be lifted', errorFail, 'client_host_blocked_in_config'),
      },
      ADMIN,
    ),
  },
})
