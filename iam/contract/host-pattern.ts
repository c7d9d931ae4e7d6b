/**
 * A host name (`mcp.example.com`) or every host below a domain (`*.example.com`), lower case: what
 * `oidc.clientIdMetadataDocuments.{allowedHosts,blockedHosts}` take (lib/config-schema.ts), and what
 * an administrator may block from the console (contract/oidc-clients.ts). Zod-free, so the
 * configuration and the route table share it.
 */
export const HOST_PATTERN_RE = /^(\*\.)?([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/
export const HOST_PATTERN_MESSAGE = 'a host name such as mcp.example.com, or *.example.com'
