/**
 * The deprovisioning promise (docs/scim.md): when an organization's identity provider deactivates
 * a person (`active: false`) or deletes them, everything that person holds IN THAT ORGANIZATION
 * ends in the same transaction, and nothing outside it is touched.
 *
 * What "in that organization" means here:
 * - the membership: `deprovisioned_at` is set, and every statement that reads a membership as
 *   access skips such a row (features/organizations/actor.ts, org-claim.ts, active.ts), so each
 *   organization route answers 404 from the next request on, no new access token carries the
 *   organization's claim, and the person cannot make it their active organization again;
 * - the sessions acting for the organization (`session_families.active_org_id`): ended with their
 *   refresh tokens, so their access tokens fail full authentication at the next request (it reads
 *   the session with the token: docs/architecture.md, "No write on a read path" and nothing cached);
 * - sessions not acting for the organization are the person's own: they go on, without the
 *   organization (it is gone from `GET /orgs`, and setting it active is 404);
 * - API tokens and the OpenID Provider's grants belong to the account, not to an organization
 *   (neither names one): they are not ended, and the `orgs` claim the provider hands out stops
 *   naming the organization (org-claim.ts `orgClaimsOfUser` skips the row);
 * - sign-in through the organization's own SSO connection asks `isDeprovisionedIn` first.
 *
 * Reactivation (`active: true`) clears `deprovisioned_at`; the sessions ended stay ended.
 */
import type { Kysely, Transaction } from 'kysely'
import type { Database } from '../../db/schema'
import { revokeFamilies } from '../sessions/sessions-repo'

/** The reason the ended sessions carry (session_families.revoked_reason). */
export const SCIM_DEPROVISIONED_REASON = 'scim_deprovisioned'

/**
 * Inside `trx`: blocks the membership of `userId` in `orgId` and ends the sessions acting for the
 * organization. True when the membership was active until now (false: already blocked, or none).
 */
export async function deprovisionMembership(trx: Transaction<Database>, orgId: number, userId: number, now: Date): Promise<boolean> {
  const blocked = await trx
    .updateTable('memberships')
    .set({ deprovisioned_at: now })
    .where('org_id', '=', orgId)
    .where('user_id', '=', userId)
    .where('deprovisioned_at', 'is', null)
    .returning('user_id')
    .executeTakeFirst()
  // sessions are ended even when the membership was blocked already: a retry of a failed call
  // still reaches the promise
  await revokeFamilies(trx, { userId, activeOrgId: orgId }, SCIM_DEPROVISIONED_REASON, now)
  return !!blocked
}

/** Inside `trx`: lifts the block. True when the membership was blocked until now. */
export async function reactivateMembership(trx: Transaction<Database>, orgId: number, userId: number): Promise<boolean> {
  const lifted = await trx
    .updateTable('memberships')
    .set({ deprovisioned_at: null })
    .where('org_id', '=', orgId)
    .where('user_id', '=', userId)
    .where('deprovisioned_at', 'is not', null)
    .returning('user_id')
    .executeTakeFirst()
  return !!lifted
}

/**
 * Whether the organization's identity provider has `userId` deactivated in `orgId` (both the
 * internal ids). For the organization's SSO sign-in: a deprovisioned person must not get in
 * through it, nor be made a member again by it.
 */
export async function isDeprovisionedIn(db: Kysely<Database> | Transaction<Database>, orgId: number, userId: number): Promise<boolean> {
  const row = await db
    .selectFrom('memberships')
    .select('deprovisioned_at')
    .where('org_id', '=', orgId)
    .where('user_id', '=', userId)
    .executeTakeFirst()
  return !!row?.deprovisioned_at
}
