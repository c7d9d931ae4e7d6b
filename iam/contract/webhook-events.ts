/**
 * The webhook event catalogue (docs/webhooks.md, "Catalogue") in a module of its own without zod:
 * the admin console's endpoint form offers its types (components/AdminWebhookForm.vue), and the
 * pages' bundle stays free of the route schemas (contract/webhooks.ts re-exports it).
 */

/**
 * The version of the catalogue below. A type is never renamed or given another meaning; a new
 * type, or a new field in `data`, is added under a new version; a type or field that goes away
 * stays for a major version, announced in CHANGELOG.md.
 */
export const WEBHOOK_CATALOGUE_VERSION = '2026-11-30'

/** Every event type a webhook can carry (docs/webhooks.md, "Catalogue"). */
export const WEBHOOK_EVENT_TYPES = [
  'user.created',
  'user.updated',
  'user.deleted',
  'user.banned',
  'user.unbanned',
  'user.email_changed',
  'user.password_changed',
  'user.verified',
  'session.created',
  'session.revoked',
  'factor.added',
  'factor.removed',
  'api_token.created',
  'api_token.revoked',
  'organization.created',
  'organization.deleted',
  'membership.created',
  'membership.updated',
  'membership.deleted',
  // 2026-11-30: the organization's identity provider (SCIM) turned a membership off / on again
  'membership.deactivated',
  'membership.reactivated',
  'invitation.created',
  'invitation.accepted',
  'oidc.app_authorized',
  'oidc.access_revoked',
  'admin.impersonation_started',
  'admin.impersonation_ended',
  // sent only by "send a test event", to the one endpoint it names, whatever it subscribes to
  'webhook.test',
] as const

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number]

/** The families of the catalogue, for wildcards (`user.*`). */
export const WEBHOOK_EVENT_FAMILIES = [...new Set(WEBHOOK_EVENT_TYPES.map((t) => t.slice(0, t.indexOf('.'))))]

/** Whether `pattern` (a type, `family.*` or `*`) names anything in the catalogue. */
export function isWebhookPattern(pattern: string): boolean {
  if (pattern === '*') return true
  if (pattern.endsWith('.*')) return WEBHOOK_EVENT_FAMILIES.includes(pattern.slice(0, -2))
  return (WEBHOOK_EVENT_TYPES as readonly string[]).includes(pattern)
}

/**
 * The families an organization's own endpoints hear (migration 0030): the events about the
 * organization, its members and its invitations. Nothing else about a member (their sign-ins,
 * factors, tokens) belongs to the organization: the account is the person's.
 */
export const ORGANIZATION_WEBHOOK_FAMILIES = ['organization', 'membership', 'invitation'] as const

/** The types an organization's endpoint can hear (the form offers these). */
export const ORGANIZATION_WEBHOOK_TYPES = WEBHOOK_EVENT_TYPES.filter((t) => (ORGANIZATION_WEBHOOK_FAMILIES as readonly string[]).includes(t.slice(0, t.indexOf('.'))))

/** Whether an organization's endpoint may subscribe to `pattern`: `*` (all it can hear), one of its families' wildcards or types. */
export function isOrganizationWebhookPattern(pattern: string): boolean {
  if (pattern === '*') return true
  if (pattern.endsWith('.*')) return (ORGANIZATION_WEBHOOK_FAMILIES as readonly string[]).includes(pattern.slice(0, -2))
  return (ORGANIZATION_WEBHOOK_TYPES as readonly string[]).includes(pattern)
}

/** An endpoint as GET /admin/webhooks answers it: the IAM builds it (features/webhooks/endpoints.ts), the console page reads it. */
export interface EndpointView {
  id: string
  url: string
  description: string
  eventTypes: string[]
  enabled: boolean
  disabledReason: 'gone' | 'failing' | 'admin' | null
  previousSecretUntil: string | null
  createdAt: string
  updatedAt: string
  stats: { attempts24h: number; succeeded24h: number; successRate24h: number | null; pending: number; dead: number }
}
