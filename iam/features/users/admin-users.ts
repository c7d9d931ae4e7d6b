/**
 * Account administration for the operator (the admin CLI): list accounts, ban and unban. A ban
 * refuses every sign-in until `until` (login answers 403 `Account suspended`), ends the account's
 * sessions at once and suspends its API tokens until `until` (they verify as revoked ones do), in
 * the same transaction as the ban and its security event. Unban lifts the suspension; a ban that
 * runs out lifts it by itself (the verification compares the suspension's end with now).
 */
import type { IamContext } from '../../context'
import { normalizeEmail } from '../email-checks/email-checks'
import { setSuspensionOfUser } from '../api-tokens/repository'
import { recordSecurityEvent } from '../security-events/repository'
import { revokeFamilies } from '../sessions/sessions-repo'
import { findUserByEmail, findUserById } from './users-repo'

export interface AccountSummary {
  id: number
  email: string
  name: string
  emailVerified: boolean
  createdAt: string
  bannedUntil: string | null
}

/** Oldest first, `limit` from after id `afterId` (keyset paging for large instances). */
export async function listAccounts(ctx: IamContext, page: { limit: number; afterId: number }): Promise<AccountSummary[]> {
  const rows = await ctx.db
    .selectFrom('users')
    .select(['id', 'email', 'name', 'email_verified', 'created_at', 'banned_until'])
    .where('id', '>', page.afterId)
    .orderBy('id', 'asc')
    .limit(page.limit)
    .execute()
  return rows.map((row) => ({
    id: row.id,
    email: row.email,
    name: row.name,
    emailVerified: row.email_verified,
    createdAt: row.created_at.toISOString(),
    bannedUntil: row.banned_until ? row.banned_until.toISOString() : null,
  }))
}

export type BanResult =
  | { ok: true; userId: number; until: Date; sessionsEnded: number; tokensSuspended: number }
  | { ok: false; code: 'unknown_account' | 'until_in_past' }

/**
 * Who an operator acts on: an address (the admin CLI) or the account's serial id (the /admin
 * routes, which found it by its public id); `details` go into the security event beside `by`
 * (the administrator's public id).
 */
export type AccountTarget = { email: string } | { userId: number }

async function targetOf(ctx: Pick<IamContext, 'db'>, target: AccountTarget) {
  return 'email' in target ? findUserByEmail(ctx.db, normalizeEmail(target.email)) : findUserById(ctx.db, target.userId)
}

/** Bans the account until `until` (in the future), ends its sessions and suspends its API tokens. */
export async function banAccount(
  ctx: Pick<IamContext, 'db' | 'now' | 'sessionHooks'>,
  input: AccountTarget & { until: Date; reason?: string; by: string; details?: Record<string, unknown> },
): Promise<BanResult> {
  const now = new Date(ctx.now())
  if (input.until.getTime() <= now.getTime()) return { ok: false, code: 'until_in_past' }
  const user = await targetOf(ctx, input)
  if (!user) return { ok: false, code: 'unknown_account' }
  const { sessionsEnded, tokensSuspended } = await ctx.db.transaction().execute(async (trx) => {
    // the users row first: its lock orders this ban with a token creation of the user (api-tokens/create.ts)
    await trx.updateTable('users').set({ banned_until: input.until, ban_reason: input.reason ?? null, updated_at: now }).where('id', '=', user.id).execute()
    const families = await revokeFamilies(trx, { userId: user.id }, 'banned', now, ctx.sessionHooks)
    const suspended = await setSuspensionOfUser(trx, user.id, input.until)
    await recordSecurityEvent(trx, {
      type: 'user_banned',
      userId: user.id,
      visitorRowId: null,
      ipAddress: null,
      details: { until: input.until.toISOString(), ...(input.reason ? { reason: input.reason } : {}), by: input.by, sessionsEnded: families.length, tokensSuspended: suspended, ...input.details },
      at: now,
    })
    return { sessionsEnded: families.length, tokensSuspended: suspended }
  })
  return { ok: true, userId: user.id, until: input.until, sessionsEnded, tokensSuspended }
}

export type UnbanResult = { ok: true; userId: number; wasBanned: boolean } | { ok: false; code: 'unknown_account' }

/** Lifts a ban and the suspension of the account's API tokens (a no-op, still recorded, when there is none). */
export async function unbanAccount(
  ctx: Pick<IamContext, 'db' | 'now' | 'sessionHooks'>,
  input: AccountTarget & { by: string; details?: Record<string, unknown> },
): Promise<UnbanResult> {
  const now = new Date(ctx.now())
  const user = await targetOf(ctx, input)
  if (!user) return { ok: false, code: 'unknown_account' }
  const wasBanned = !!user.banned_until && user.banned_until.getTime() > now.getTime()
  await ctx.db.transaction().execute(async (trx) => {
    await trx.updateTable('users').set({ banned_until: null, ban_reason: null, updated_at: now }).where('id', '=', user.id).execute()
    await setSuspensionOfUser(trx, user.id, null)
    await recordSecurityEvent(trx, { type: 'user_unbanned', userId: user.id, visitorRowId: null, ipAddress: null, details: { by: input.by, ...input.details }, at: now })
  })
  return { ok: true, userId: user.id, wasBanned }
}
