/**
 * The IAM's `sso_required` refusal (docs/enterprise.md, "Requiring SSO"): the address's domain
 * signs in through its organization's identity provider only. Pure: the pages and the BFF's no-JS
 * form posts share it. The connection id is checked to be a UUID before it goes into a URL.
 */
const CONNECTION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** The connection to continue at when `result` is the `sso_required` refusal, else null. */
export function ssoRequiredConnection(result: { status: number; body: unknown }): string | null {
  const body = result.body as { code?: unknown; connectionId?: unknown } | null
  if (result.status !== 403 || body?.code !== 'sso_required' || typeof body.connectionId !== 'string') return null
  return CONNECTION_ID.test(body.connectionId) ? body.connectionId : null
}

/** The gateway's SAML start for a connection (server/routes/sso/saml/[connectionId]/start.get.ts), back to `returnTo` after. */
export const ssoStartPath = (connectionId: string, returnTo: string): string => `/sso/saml/${encodeURIComponent(connectionId)}/start?returnTo=${encodeURIComponent(returnTo)}`
