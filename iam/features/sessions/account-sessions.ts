/**
 * The account's own view of its sessions: list the live ones, end one, end all but the
 * current one. A session is a refresh-token family; its id is the family's random UUID, the same
 * value the access token carries as `sid`, so it is no secret (the refresh token is). Ending a
 * family revokes its tokens in the database; full authentication reads the family on every request
 * (findAuthState), so its access token is refused at once on every instance.
 */
import { sql } from 'kysely'
import type { IamContext } from '../../context'
import { resolveFamilyAnomaly } from '../anomalies/anomaly-store'
import type { Actor } from '../security-events/repository'
import { recordUserAction } from '../security-events/repository'
import { revokeFamilies } from './sessions-repo'

export interface SessionView {
  id: string
  current: boolean
  createdAt: string
  lastSeenAt: string
  ipAddress: string | null
  browser: string | null
  os: string | null
  country?: string
}

/** A user has a handful of sessions; the cap only bounds a pathological account's answer. */
const MAX_LISTED = 100

const text = (value: unknown): string | null => (typeof value === 'string' && value ? value : null)

/** Live sessions (not revoked, within MAX_SESSION_LIFE, an unexpired active token), newest first. */
export async function listSessions(ctx: IamContext, input: { userId: number; currentSessionId: string }): Promise<SessionView[]> {
  const now = ctx.now()
  const bornAfter = new Date(now - ctx.config.jwt.refresh_tokens.MAX_SESSION_LIFE)
  const rows = await ctx.db
    .selectFrom('session_families as f')
    .select(['f.id', 'f.created_at', 'f.last_seen', 'f.ip_address', 'f.fingerprint'])
    .where('f.user_id', '=', input.userId)
    .where('f.revoked_at', 'is', null)
    .where('f.created_at', '>', bornAfter)
    .where(sql<boolean>`exists (select 1 from refresh_tokens t where t.family_id = f.id and t.status = 'active' and t.expires_at > ${new Date(now)})`)
    .orderBy('f.created_at', 'desc')
    .orderBy('f.id', 'desc')
    .limit(MAX_LISTED)
    .execute()
  return rows.map((row) => {
    const fp = row.fingerprint ?? {}
    const country = text(fp.country)
    return {
      id: row.id,
      current: row.id === input.currentSessionId,
      createdAt: row.created_at.toISOString(),
      lastSeenAt: row.last_seen.toISOString(),
      ipAddress: row.ip_address,
      browser: text(fp.browser),
      os: text(fp.os),
      ...(country ? { country } : {}),
    }
  })
}

export type RevokeSessionResult = { ok: true } | { ok: false; code: 'session_not_found' }

/** Ends one live session of the user; an unknown id and another user's id are the same miss. */
export async function revokeSession(ctx: IamContext, input: { userId: number; sessionId: string; actor: Actor }): Promise<RevokeSessionResult> {
  const now = new Date(ctx.now())
  const revoked = await ctx.db.transaction().execute(async (trx) => {
    const ids = await revokeFamilies(trx, { familyId: input.sessionId, userId: input.userId }, 'user_revoked', now, ctx.sessionHooks)
    if (ids.length) await recordUserAction(trx, 'session_revoked', { ...input, details: { sessionId: input.sessionId }, at: now })
    return ids
  })
  if (!revoked.length) return { ok: false, code: 'session_not_found' }
  await resolveFamilyAnomaly(ctx.store, input.sessionId)
  return { ok: true }
}

/** "Sign out everywhere else": ends every session of the user but `currentSessionId`. */
export async function revokeOtherSessions(
  ctx: IamContext,
  input: { userId: number; currentSessionId: string; actor: Actor },
): Promise<{ ok: true; revoked: number }> {
  const now = new Date(ctx.now())
  const revoked = await ctx.db.transaction().execute(async (trx) => {
    const ids = await revokeFamilies(trx, { userId: input.userId, exceptFamilyId: input.currentSessionId }, 'user_revoked_others', now, ctx.sessionHooks)
    await recordUserAction(trx, 'sessions_revoked_others', { ...input, details: { revokedSessions: ids.length }, at: now })
    return ids
  })
  await Promise.all(revoked.map((id) => resolveFamilyAnomaly(ctx.store, id)))
  return { ok: true, revoked: revoked.length }
}
