/**
 * Dynamic client registration (RFC 7591, `oidc.registration`): what a client may register for
 * itself. oidc-provider validates the metadata's shape and the URIs; this decides what a
 * self-registered client is allowed to be, since nobody on the team looked at it:
 * - it acts for a person only: `authorization_code`, `refresh_token` and the device flow, never
 *   `client_credentials` (a token as itself would reach an API's scopes without any person's
 *   consent: anyone could register and call the APIs);
 * - it is never one of the team's own apps (`first_party`, which skips the consent page).
 * The admin CLI registers everything else (features/oidc/clients.ts).
 */

const PERSON_GRANTS = new Set(['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code'])

/** Why `metadata` may not be registered by the client itself, or null when it may. */
export function refusedRegistration(metadata: Record<string, unknown>): string | null {
  if (metadata['first_party'] !== undefined && metadata['first_party'] !== false) return 'first_party is set by the operator only'
  const grants = Array.isArray(metadata['grant_types']) ? metadata['grant_types'] : ['authorization_code']
  const other = grants.find((grant) => typeof grant !== 'string' || !PERSON_GRANTS.has(grant))
  if (other !== undefined) return `grant_types: ${String(other)} cannot be registered by a client itself (only authorization_code, refresh_token and the device flow)`
  return null
}
