/**
 * The security events of what a SCIM client changes in accounts and memberships (docs/scim.md,
 * "Security events and webhooks"). The provisioning log (scim-events.ts) tells the organization's
 * owners what their provider did; these tell the person acted on (their activity page) and, as
 * every security event does, the webhook receivers (features/webhooks/event-map.ts): the outbox
 * row is written by recordSecurityEvent with the same transaction, so an event exists exactly when
 * the change committed.
 *
 * A SCIM change has no acting account: the event is recorded on the member's own account, with
 * the address the SCIM client called from (the request's resolved client IP, as every route
 * records it), no device, and details naming the organization (`orgId`, `orgName`), the member
 * (`member`, their public id, as org_member_removed names the one removed) and `method: 'scim'`.
 */
import { sql, type Transaction } from 'kysely'
import type { Database } from '../../db/schema'
import { recordSecurityEvent } from '../security-events/repository'
import type { SecurityEventType } from '../../contract/security-event-types'
import type { ScimTenant } from './scim-tokens'

/** What a SCIM write knows of its request: the clock's reading and the caller's address. */
export interface ScimCall {
  now: number
  /** the SCIM client's address (http/request.ts getClientIp) */
  ip: string
}

export type ScimMemberEventType = Extract<
  SecurityEventType,
  'org_member_provisioned' | 'org_member_deprovisioned' | 'org_member_reprovisioned' | 'org_member_unprovisioned' | 'org_member_role_provisioned'
>

/** The organization's name and the member's public id, as the events name them. */
async function namesOf(trx: Transaction<Database>, orgId: number, userId: number) {
  return trx
    .selectFrom('organizations as o')
    .innerJoin('users as u', (j) => j.on('u.id', '=', userId))
    .select(['o.name as orgName', sql<string>`u.public_id::text`.as('member')])
    .where('o.id', '=', orgId)
    .executeTakeFirstOrThrow()
}

/** Inside the SCIM write's transaction: the event of a membership change made for `userId`. */
export async function recordScimMemberEvent(
  trx: Transaction<Database>,
  tenant: ScimTenant,
  input: { type: ScimMemberEventType; userId: number; call: ScimCall; at: Date; role?: string },
): Promise<void> {
  const { orgName, member } = await namesOf(trx, tenant.orgId, input.userId)
  await recordSecurityEvent(trx, {
    type: input.type,
    userId: input.userId,
    visitorRowId: null,
    ipAddress: input.call.ip,
    details: { orgId: tenant.orgPublicId, orgName, member, method: 'scim', ...(input.role === undefined ? {} : { role: input.role }) },
    at: input.at,
  })
}

/** Inside the SCIM write's transaction: the account made for `userId` (`signed_up`, as every sign-up records it). */
export async function recordScimSignUp(trx: Transaction<Database>, tenant: ScimTenant, input: { userId: number; call: ScimCall; at: Date }): Promise<void> {
  const { orgName } = await namesOf(trx, tenant.orgId, input.userId)
  await recordSecurityEvent(trx, {
    type: 'signed_up',
    userId: input.userId,
    visitorRowId: null,
    ipAddress: input.call.ip,
    details: { method: 'scim', orgId: tenant.orgPublicId, orgName },
    at: input.at,
  })
}
