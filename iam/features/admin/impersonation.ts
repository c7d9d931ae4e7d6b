/**
 * Impersonation: a platform administrator opens a session of another account, to see what its
 * owner sees (docs/administration.md). The session is an ordinary session family of the account,
 * marked with the administrator's public id (session_families.impersonated_by, migration 0012):
 *
 * - its access tokens carry `act: { sub: <administrator's public id> }` (RFC 8693 section 4.1), at
 *   its start and at every refresh (session-service.familyClaims, the rotation's facts);
 * - it ends at a hard end (security.impersonationTtlMs after its start): its refresh tokens and
 *   access tokens never live past it, so it cannot be refreshed beyond;
 * - the routes the table marks refuse it (contract/define.ts refusedWhileImpersonating);
 * - its start and its end are security events of BOTH accounts (`impersonation_started`,
 *   `impersonation_ended`), written in the same transaction as the change.
 *
 * Administrators are never impersonated (an administrator's powers must not pass through someone
 * else's hands), nor a banned account; an unknown and a banned account answer alike.
 */
import { randomUUID } from 'node:crypto'
import { sql } from 'kysely'
import type { IamContext } from '../../context'
import type { Actor } from '../security-events/repository'
import { resolveFamilyAnomaly } from '../anomalies/anomaly-store'
import { recordUserAction } from '../security-events/repository'
import { hashRefreshToken, newRefreshToken } from '../sessions/refresh-token'
import { completePair, type TokenPair } from '../sessions/session-service'
import { insertImpersonatedSession, revokeFamilies } from '../sessions/sessions-repo'
import { endImpersonationsOpenedBy, IMPERSONATION_ENDED, recordImpersonationEnds, type ImpersonatedFamily } from './impersonation-end'
import { BY_ADMIN } from './users'
import { isPlatformAdmin } from './platform-admins'

/** The administrator acting: the serial id and device of full authentication, and the request's facts. */
export interface ImpersonatorFacts {
  userId: number
  actor: Actor
  /** the administrator's device (the session is bound to it, as a sign-in from it would be) */
  visitor: { id: number; visitor_id: string }
}

export type StartFailure = { ok: false; code: 'unknown_user' | 'self' | 'target_is_admin' }
export type StartResult = { ok: true; pair: TokenPair; endsAt: Date; target: { id: string; email: string; name: string } } | StartFailure

const isUuid = (value: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value)

/**
 * Opens a session of the account behind `publicId` on the administrator's behalf, and records the
 * start on both accounts. Refuses an administrator (`target_is_admin`), the administrator's own
 * account (`self`), and an unknown or banned account alike (`unknown_user`).
 */
export async function startImpersonation(ctx: IamContext, admin: ImpersonatorFacts, publicId: string): Promise<StartResult> {
  if (!isUuid(publicId)) return { ok: false, code: 'unknown_user' }
  const now = ctx.now()
  const rows = await ctx.db
    .selectFrom('users')
    .select(['id', sql<string>`public_id::text`.as('public_id'), 'email', 'name', 'roles', 'banned_until'])
    .where((eb) => eb.or([eb('public_id', '=', publicId), eb('id', '=', admin.userId)]))
    .execute()
  const self = rows.find((r) => r.id === admin.userId)
  const target = rows.find((r) => r.public_id.toLowerCase() === publicId.toLowerCase())
  if (!self) return { ok: false, code: 'unknown_user' }
  if (target?.id === self.id) return { ok: false, code: 'self' }
  if (!target || (target.banned_until && target.banned_until.getTime() > now)) return { ok: false, code: 'unknown_user' }
  if (isPlatformAdmin(target.roles)) return { ok: false, code: 'target_is_admin' }

  const endsAt = new Date(now + ctx.config.security.impersonationTtlMs)
  const familyId = randomUUID()
  const refreshToken = newRefreshToken()
  const at = new Date(now)
  await ctx.db.transaction().execute(async (trx) => {
    await insertImpersonatedSession(
      trx,
      {
        id: familyId,
        userId: target.id,
        visitorRowId: admin.visitor.id,
        remember: false,
        ipAddress: admin.actor.ipAddress,
        fingerprint: admin.actor.fingerprint,
        now: at,
        refreshExpiresAt: endsAt,
        // the administrator proved their own sign-in recently (the admin guard): no emailed code to the owner
        mfaPassed: true,
      },
      { familyId, hash: hashRefreshToken(refreshToken), expiresAt: endsAt, now: at },
      { adminId: self.public_id, endsAt },
    )
    const details = { by: BY_ADMIN, adminId: self.public_id, userId: target.public_id, sessionId: familyId, endsAt: endsAt.toISOString() }
    await recordUserAction(trx, 'impersonation_started', { userId: target.id, actor: admin.actor, details, at })
    await recordUserAction(trx, 'impersonation_started', { userId: self.id, actor: admin.actor, details: { ...details, email: target.email }, at })
  })
  const pair = await completePair(
    ctx,
    { familyId, refreshToken, refreshExpiresAt: endsAt.getTime() },
    { subject: target.public_id, roles: target.roles, visitor: admin.visitor.visitor_id, act: { sub: self.public_id }, endsAt: endsAt.getTime() },
  )
  return { ok: true, pair, endsAt, target: { id: target.public_id, email: target.email, name: target.name } }
}

/**
 * Ends one impersonated session (its logout): revoked and recorded on both accounts in one
 * transaction; a second, racing end records nothing. False when the family was no live
 * impersonated session.
 */
export async function endImpersonatedSession(ctx: IamContext, familyId: string, actor: { visitorRowId: number | null; ipAddress: string }): Promise<boolean> {
  const at = new Date(ctx.now())
  const ended = await ctx.db.transaction().execute(async (trx) => {
    const family = await trx
      .selectFrom('session_families')
      .select(['id', 'user_id', 'impersonated_by'])
      .where('id', '=', familyId)
      .where('revoked_at', 'is', null)
      .where('impersonated_by', 'is not', null)
      .forUpdate()
      .executeTakeFirst()
    if (!family) return false
    const revoked = await revokeFamilies(trx, { familyId }, IMPERSONATION_ENDED, at, ctx.sessionHooks)
    if (revoked.length === 0) return false
    await recordImpersonationEnds(trx, [family as ImpersonatedFamily], actor, 'logout', at)
    return true
  })
  if (ended) await resolveFamilyAnomaly(ctx.store, familyId)
  return ended
}

/**
 * Ends every live session the administrator opened on someone's behalf (POST
 * /admin/impersonation/end), recording each end on both accounts. Returns how many ended.
 */
export async function endImpersonationsBy(ctx: IamContext, admin: { userId: number; actor: Actor }): Promise<number> {
  const ended = await ctx.db.transaction().execute((trx) => endImpersonationsOpenedBy(trx, admin.userId, admin.actor, 'ended_by_admin', new Date(ctx.now())))
  await Promise.all(ended.map((id) => resolveFamilyAnomaly(ctx.store, id)))
  return ended.length
}
