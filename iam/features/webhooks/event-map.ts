/**
 * Which webhook events a security event becomes (iam/contract/webhooks.ts, the catalogue), and the
 * thin `data` it carries. Nearly every change the catalogue reports already records a security
 * event inside its own transaction (features/security-events/repository.ts): the outbox row is
 * written beside it, so the webhook commits or rolls back with the change.
 *
 * `data` is built from named fields only (DETAIL_FIELDS): never a whole `details` object, so no
 * secret, hash, code, token, address or device ever reaches a receiver, whatever a future event
 * records. The account's public id is added by the outbox statement itself (`data.user.id`).
 */
import type { SecurityEventType } from '../../contract/security-event-types'
import { ORGANIZATION_WEBHOOK_FAMILIES, type WebhookEventType } from '../../contract/webhook-events'

interface Mapping {
  types: readonly WebhookEventType[]
  /**
   * recorded on two accounts (impersonation: the administrator's and the one acted on): only the
   * record of the account acted on becomes a webhook, the one whose public id is details.userId
   */
  subjectOnly?: boolean
}

const MAP: Partial<Record<SecurityEventType, Mapping>> = {
  signed_up: { types: ['user.created'] },
  profile_updated: { types: ['user.updated'] },
  user_banned: { types: ['user.banned'] },
  user_unbanned: { types: ['user.unbanned'] },
  email_changed: { types: ['user.email_changed'] },
  password_changed: { types: ['user.password_changed'] },
  password_reset: { types: ['user.password_changed'] },
  password_set: { types: ['user.password_changed'] },
  email_verified: { types: ['user.verified'] },
  admin_email_verified: { types: ['user.verified'] },
  login_succeeded: { types: ['session.created'] },
  session_revoked: { types: ['session.revoked'] },
  sessions_revoked_others: { types: ['session.revoked'] },
  admin_sessions_revoked: { types: ['session.revoked'] },
  session_revoked_anomaly: { types: ['session.revoked'] },
  second_factor_added: { types: ['factor.added'] },
  second_factor_removed: { types: ['factor.removed'] },
  admin_factor_removed: { types: ['factor.removed'] },
  api_token_created: { types: ['api_token.created'] },
  api_token_revoked: { types: ['api_token.revoked'] },
  api_tokens_revoked_all: { types: ['api_token.revoked'] },
  org_created: { types: ['organization.created', 'membership.created'] },
  org_deleted: { types: ['organization.deleted'] },
  org_member_invited: { types: ['invitation.created'] },
  org_invitation_accepted: { types: ['invitation.accepted', 'membership.created'] },
  org_member_role_changed: { types: ['membership.updated'] },
  org_member_removed: { types: ['membership.deleted'] },
  org_left: { types: ['membership.deleted'] },
  // made by the organization's identity provider (SCIM): recorded on the member's own account
  org_member_provisioned: { types: ['membership.created'] },
  org_member_deprovisioned: { types: ['membership.deactivated'] },
  org_member_reprovisioned: { types: ['membership.reactivated'] },
  org_member_unprovisioned: { types: ['membership.deleted'] },
  org_member_role_provisioned: { types: ['membership.updated'] },
  oidc_app_authorized: { types: ['oidc.app_authorized'] },
  oidc_access_revoked: { types: ['oidc.access_revoked'] },
  impersonation_started: { types: ['admin.impersonation_started'], subjectOnly: true },
  impersonation_ended: { types: ['admin.impersonation_ended'], subjectOnly: true },
}

/**
 * The `details` fields a receiver may see, each an id or a closed value: the session, the
 * organization and member, the role's name, how (method, provider, field), the app's client id,
 * the administrator's public id. Strings longer than 200 characters are left out.
 */
const DETAIL_FIELDS = ['sessionId', 'orgId', 'member', 'role', 'method', 'provider', 'field', 'clientId', 'adminId', 'passkeyId', 'reason'] as const

/** The webhook types a security event becomes (none for most of the audit-only kinds). */
export function webhookTypesOf(type: SecurityEventType): readonly WebhookEventType[] {
  return MAP[type]?.types ?? []
}

/** Whether only the record on the account acted on is reported (see Mapping.subjectOnly). */
export const reportsSubjectOnly = (type: SecurityEventType): boolean => MAP[type]?.subjectOnly === true

/** The thin `data` of a security event's webhook, without `user` (the outbox statement adds it). */
export function webhookData(details: Record<string, unknown> | undefined): Record<string, string | number | boolean> {
  const data: Record<string, string | number | boolean> = {}
  if (!details) return data
  for (const field of DETAIL_FIELDS) {
    const value = details[field]
    if (typeof value === 'number' || typeof value === 'boolean' || (typeof value === 'string' && value.length <= 200)) data[field] = value
  }
  return data
}

/** Whether an endpoint subscribed to `patterns` receives `type` (`*`, `family.*` or the type itself). */
export function patternsMatch(patterns: Iterable<string>, type: string): boolean {
  const family = `${type.slice(0, type.indexOf('.'))}.*`
  for (const p of patterns) if (p === '*' || p === type || p === family) return true
  return false
}

/**
 * The organization an event of `type` is about, for its own endpoints: `data.orgId` (the public id
 * features/organizations/actor.ts eventDetails records) for a type of ORGANIZATION_WEBHOOK_FAMILIES
 * (contract/webhook-events.ts), else null: platform endpoints only.
 */
export function organizationOf(type: string, data: Record<string, unknown>): string | null {
  const family = type.slice(0, type.indexOf('.'))
  if (!(ORGANIZATION_WEBHOOK_FAMILIES as readonly string[]).includes(family)) return null
  return typeof data.orgId === 'string' && UUID.test(data.orgId) ? data.orgId : null
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** The patterns that match `type`, as the outbox statement looks them up (`event_types ?| ...`). */
export const patternsFor = (type: string): [all: string, exact: string, family: string] => ['*', type, `${type.slice(0, type.indexOf('.'))}.*`]
