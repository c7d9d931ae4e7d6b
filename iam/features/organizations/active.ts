/**
 * The active organization of a session (session_families.active_org_id): set by POST /orgs/active,
 * carried by every access token minted for the session afterwards as `org: { id, slug, role,
 * permissions }`, read where tokens are issued and nowhere else: full authentication reads only
 * the column (features/sessions/auth-state-repo.ts), and a refresh reads the claim (org-claim.ts)
 * only for a session that has one. A user removed from the organization, or who left it, loses the
 * claim (members.ts clears the column; the claim's statement joins the membership anyway).
 */
import { sql } from 'kysely'
import type { IamContext } from '../../context'
import { renewFamilyToken, pairForFamily, type TokenPair } from '../sessions/session-service'
import type { OrgClaim } from '../tokens/access-token'

export type SetActiveResult = { ok: true; pair: TokenPair; org: OrgClaim | null } | { ok: false; code: 'not_found' | 'session_gone' }

class NotAMember extends Error {}

/**
 * Sets (or clears, `orgId` null) the session's active organization and renews its token pair, so
 * the answer's access token carries the claim. One transaction: the update that joins the user's
 * membership, and the renewal of the session's refresh token.
 */
export async function setActiveOrganization(ctx: IamContext, input: { sessionId: string; userId: number; orgId: string | null }): Promise<SetActiveResult> {
  const now = ctx.now()
  let session
  try {
    session = await ctx.db.transaction().execute(async (trx) => {
      const updated =
        input.orgId === null
          ? await sql`update session_families set active_org_id = null where id = ${input.sessionId} and user_id = ${input.userId} returning id`.execute(trx)
          : await sql`update session_families f set active_org_id = o.id
              from organizations o join memberships m on m.org_id = o.id
              where o.public_id = ${input.orgId}::uuid and m.user_id = ${input.userId} and m.deprovisioned_at is null and f.id = ${input.sessionId} and f.user_id = ${input.userId}
              returning f.id`.execute(trx)
      if (updated.rows.length === 0) throw new NotAMember()
      return renewFamilyToken(ctx, trx, input.sessionId, now)
    })
  } catch (error) {
    if (error instanceof NotAMember) return { ok: false, code: 'not_found' }
    throw error
  }
  if (!session) return { ok: false, code: 'session_gone' }
  const pair = await pairForFamily(ctx, session)
  if (!pair) return { ok: false, code: 'session_gone' }
  return { ok: true, pair, org: pair.org ?? null }
}
