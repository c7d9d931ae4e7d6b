/**
 * What a platform administrator sees of and does to an account (the /admin routes). Accounts are
 * named by their public id (users.public_id), never the serial id. The views carry metadata only:
 * no password hash, TOTP secret, recovery code, token hash or passkey public key is ever selected.
 *
 * Every action is recorded on the target account's security events, in the same transaction as
 * the change where there is one, with `details.adminId`: the administrator's public id.
 * The ban and unban are the admin CLI's (users/admin-users.ts); ending every session is
 * revokeFamilies' account-wide end, which also revokes what the OpenID Provider holds.
 */
import { suspensionOf, type SuspensionView } from '../users/suspension'
import { sql, type Kysely } from 'kysely'
import type { IamContext } from '../../context'
import type { Database } from '../../db/schema'
import { mayLag } from '../../db/replicas'
import type { Actor } from '../security-events/repository'
import { sendResetMail } from '../account-actions/password-reset'
import { resolveFamilyAnomaly } from '../anomalies/anomaly-store'
import { deleteSecondFactor } from '../second-factors/repository'
import { sendSecondFactorNotice } from '../second-factors/notice'
import * as passkeys from '../second-factors/passkeys/repository'
import { pageSecurityEvents, recordUserAction } from '../security-events/repository'
import { listSessions, type SessionView } from '../sessions/account-sessions'
import { revokeFamilies } from '../sessions/sessions-repo'
import { banAccount, unbanAccount } from '../users/admin-users'
import { isPlatformAdmin } from './platform-admins'

/** The `by` of the events an administrator's action records (the CLI's is `admin-cli`). */
export const BY_ADMIN = 'admin'

/** No session is "current" in an administrator's view of another account. */
const NO_SESSION = '00000000-0000-0000-0000-000000000000'

export interface AdminUserSummary {
  id: string
  email: string
  name: string
  emailVerified: boolean
  admin: boolean
  createdAt: string
  bannedUntil: string | null
  /** when a confirmed deletion erases the account unless its owner undoes it; null when none is pending */
  deletionDueAt: string | null
}

/** The administrator acting, as the routes know it: the serial id of full authentication and the request's device. */
export interface AdminActor {
  userId: number
  actor: Actor
}

/** What the actions record: the administrator's public id, read with the target. */
interface Pair {
  target: { id: number; public_id: string; email: string }
  adminId: string
}

type Db = Kysely<Database>

const iso = (value: Date | null): string | null => (value ? value.toISOString() : null)

const summaryOf = (row: {
  public_id: string
  email: string
  name: string
  email_verified: boolean
  roles: string[]
  created_at: Date
  banned_until: Date | null
  deletion_due_at: Date | null
}): AdminUserSummary => ({
  id: row.public_id,
  email: row.email,
  name: row.name,
  emailVerified: row.email_verified,
  admin: isPlatformAdmin(row.roles),
  createdAt: row.created_at.toISOString(),
  bannedUntil: iso(row.banned_until),
  deletionDueAt: iso(row.deletion_due_at),
})

/** LIKE's own characters taken literally: a search for `a_b` finds `a_b`, not `axb`. */
const likePrefix = (text: string) => `${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`

/** An opaque cursor: the serial id of the last account of a page, never shown as such. */
export const encodeCursor = (id: number): string => Buffer.from(`u${id}`).toString('base64url')
export function decodeCursor(cursor: string | undefined): number | null | 'invalid' {
  if (cursor === undefined) return null
  const match = /^u(\d{1,15})$/.exec(Buffer.from(cursor, 'base64url').toString())
  return match ? Number(match[1]) : 'invalid'
}

/**
 * A page of accounts, oldest first, whose email or name starts with `q` (case-insensitive) or whose
 * external id is exactly `q` (every account without `q`), from after `cursor`; `next` is the cursor
 * of the following page, null on the last. The external id is matched whole and as stored: an id is
 * looked up (the unique index of migration 0013), never browsed by its start.
 */
export async function searchUsers(
  ctx: Pick<IamContext, 'db'>,
  input: { q?: string; limit: number; cursor?: string },
): Promise<{ ok: true; users: AdminUserSummary[]; next: string | null } | { ok: false; code: 'invalid_cursor' }> {
  const after = decodeCursor(input.cursor)
  if (after === 'invalid') return { ok: false, code: 'invalid_cursor' }
  // may lag: a list an administrator browses; an account created a moment ago shows on the next page load
  let query = mayLag(ctx.db)
    .selectFrom('users')
    .select(['id', 'public_id', 'email', 'name', 'email_verified', 'roles', 'created_at', 'banned_until', 'deletion_due_at'])
    .orderBy('id', 'asc')
    .limit(input.limit + 1)
  if (after !== null) query = query.where('id', '>', after)
  if (input.q) {
    const prefix = likePrefix(input.q)
    query = query.where(sql<boolean>`(lower(email) like ${prefix} or lower(name) like ${prefix} or external_id = ${input.q})`)
  }
  const rows = await query.execute()
  const page = rows.slice(0, input.limit)
  const next = rows.length > input.limit ? encodeCursor(page[page.length - 1]!.id) : null
  return { ok: true, users: page.map(summaryOf), next }
}

export interface AdminUserDetail {
  /** `externalId`: the account's id in the system it was imported from (features/users/import-users.ts), null for none */
  user: AdminUserSummary & { hasPassword: boolean; firstVerifiedAt: string | null; updatedAt: string; externalId: string | null; suspension: SuspensionView | null }
  sessions: Array<Omit<SessionView, 'current'>>
  factors: {
    totp: { enabled: boolean; createdAt: string; enabledAt: string | null } | null
    recoveryCodesLeft: number
    passkeys: Array<{ id: number; name: string; createdAt: string; lastUsedAt: string | null; backedUp: boolean }>
  }
  apiTokens: Array<{
    id: number
    name: string
    publicIdentifier: string
    privilege: string
    valid: boolean
    createdAt: string
    expiresAt: string | null
    lastUsedAt: string | null
    usageCount: number
    suspendedUntil: string | null
  }>
  organizations: Array<{ id: string; slug: string; name: string; role: string; roleName: string; since: string }>
  securityEvents: Array<{ type: string; createdAt: string; ipAddress: string | null; details: Record<string, unknown> }>
}

/** How many recent security events the detail shows. */
export const DETAIL_EVENTS = 20
/** Bounds an unusual account's lists in one answer. */
const DETAIL_LIST_CAP = 100

const isUuid = (value: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value)

/** The account behind a public id, or undefined. */
function findByPublicId(db: Db, publicId: string) {
  if (!isUuid(publicId)) return Promise.resolve(undefined)
  return db
    .selectFrom('users')
    .select(['id', 'public_id', 'email', 'name', 'email_verified', 'roles', 'created_at', 'updated_at', 'banned_until', 'ban_reason', 'deletion_due_at', 'first_verified_at', 'external_id', sql<boolean>`password_hash is not null`.as('has_password')])
    .where('public_id', '=', publicId)
    .executeTakeFirst()
}

/** The detail of one account; undefined when no account has that public id. */
export async function userDetail(ctx: IamContext, publicId: string): Promise<AdminUserDetail | undefined> {
  const row = await findByPublicId(ctx.db, publicId)
  if (!row) return undefined
  const userId = row.id
  const now = new Date(ctx.now())
  const [sessions, totp, codes, keys, tokens, orgs, events] = await Promise.all([
    listSessions(ctx, { userId, currentSessionId: NO_SESSION }),
    ctx.db.selectFrom('totp_factors').select(['created_at', 'enabled_at']).where('user_id', '=', userId).executeTakeFirst(),
    ctx.db.selectFrom('recovery_codes').select((eb) => eb.fn.countAll<string>().as('n')).where('user_id', '=', userId).where('used_at', 'is', null).executeTakeFirstOrThrow(),
    ctx.db.selectFrom('passkeys').select(['id', 'name', 'created_at', 'last_used_at', 'backed_up']).where('user_id', '=', userId).orderBy('id').limit(DETAIL_LIST_CAP).execute(),
    ctx.db
      .selectFrom('api_tokens')
      .select(['id', 'name', 'public_identifier', 'privilege_type', 'valid', 'created_at', 'expires_at', 'last_used', 'usage_count', 'suspended_until'])
      .where('user_id', '=', userId)
      .orderBy('id', 'desc')
      .limit(DETAIL_LIST_CAP)
      .execute(),
    sql<{ id: string; slug: string; name: string; role: string; roleName: string; since: Date | string }>`select o.public_id::text as id, o.slug, o.name, m.role,
        coalesce(r.name, m.role) as "roleName", m.created_at as since
      from memberships m
      join organizations o on o.id = m.org_id
      left join organization_roles r on r.org_id = o.id and r.id::text = m.role
      where m.user_id = ${userId}
      order by m.created_at, o.id
      limit ${DETAIL_LIST_CAP}`.execute(ctx.db),
    // may lag: the account's recent history as an administrator reads it; nothing is decided on it
    pageSecurityEvents(mayLag(ctx.db), userId, { limit: DETAIL_EVENTS, before: null }),
  ])
  return {
    user: {
      ...summaryOf(row),
      hasPassword: !!row.has_password,
      firstVerifiedAt: iso(row.first_verified_at),
      updatedAt: row.updated_at.toISOString(),
      externalId: row.external_id,
      suspension: suspensionOf(row, now.getTime()),
    },
    sessions: sessions.map(({ current: _current, ...session }) => session),
    factors: {
      totp: totp ? { enabled: totp.enabled_at !== null, createdAt: totp.created_at.toISOString(), enabledAt: iso(totp.enabled_at) } : null,
      recoveryCodesLeft: Number(codes.n),
      passkeys: keys.map((k) => ({ id: k.id, name: k.name, createdAt: k.created_at.toISOString(), lastUsedAt: iso(k.last_used_at), backedUp: k.backed_up })),
    },
    apiTokens: tokens.map((t) => ({
      id: t.id,
      name: t.name,
      publicIdentifier: t.public_identifier,
      privilege: t.privilege_type,
      // a suspension (a ban) reads as valid here: the token verifies again when it ends
      valid: t.valid === 1,
      createdAt: t.created_at.toISOString(),
      expiresAt: iso(t.expires_at),
      lastUsedAt: iso(t.last_used),
      usageCount: t.usage_count,
      suspendedUntil: t.suspended_until && t.suspended_until > now ? t.suspended_until.toISOString() : null,
    })),
    organizations: orgs.rows.map((o) => ({ ...o, since: new Date(o.since).toISOString() })),
    securityEvents: events.map((e) => ({ type: e.type, createdAt: e.created_at.toISOString(), ipAddress: e.ip_address, details: e.details })),
  }
}

export type AdminFailure = { ok: false; code: 'unknown_user' }
const UNKNOWN_USER: AdminFailure = { ok: false, code: 'unknown_user' }

/** The target by its public id and the administrator's own public id, in one statement. */
async function pairOf(db: Db, publicId: string, adminUserId: number): Promise<Pair | undefined> {
  if (!isUuid(publicId)) return undefined
  const rows = await db
    .selectFrom('users')
    .select(['id', sql<string>`public_id::text`.as('public_id'), 'email'])
    .where((eb) => eb.or([eb('public_id', '=', publicId), eb('id', '=', adminUserId)]))
    .execute()
  const target = rows.find((r) => r.public_id.toLowerCase() === publicId.toLowerCase())
  const admin = rows.find((r) => r.id === adminUserId)
  return target && admin ? { target, adminId: admin.public_id } : undefined
}

/** Bans the account (the CLI's ban: sessions end, API tokens suspended) until `until`. */
export async function adminBan(ctx: IamContext, input: AdminActor & { publicId: string; until: Date; reason: string }) {
  const pair = await pairOf(ctx.db, input.publicId, input.userId)
  if (!pair) return UNKNOWN_USER
  // an administrator who banned themself would be locked out with nobody there to lift it
  if (pair.target.id === input.userId) return { ok: false as const, code: 'self' as const }
  const result = await banAccount(ctx, { userId: pair.target.id, until: input.until, reason: input.reason, by: BY_ADMIN, details: { adminId: pair.adminId } })
  if (!result.ok) return result.code === 'unknown_account' ? UNKNOWN_USER : ({ ok: false, code: 'until_in_past' } as const)
  const suspension = suspensionOf({ banned_until: result.until, ban_reason: input.reason }, ctx.now())
  return { ok: true as const, until: suspension?.until ?? null, reason: input.reason, sessionsEnded: result.sessionsEnded, tokensSuspended: result.tokensSuspended }
}

/** Lifts the account's ban (the CLI's unban). */
export async function adminUnban(ctx: IamContext, input: AdminActor & { publicId: string }) {
  const pair = await pairOf(ctx.db, input.publicId, input.userId)
  if (!pair) return UNKNOWN_USER
  const result = await unbanAccount(ctx, { userId: pair.target.id, by: BY_ADMIN, details: { adminId: pair.adminId } })
  if (!result.ok) return UNKNOWN_USER
  return { ok: true as const, wasBanned: result.wasBanned }
}

/** Ends every session of the account (and, account-wide, its OpenID Provider grants). */
export async function adminRevokeSessions(ctx: IamContext, input: AdminActor & { publicId: string }) {
  const pair = await pairOf(ctx.db, input.publicId, input.userId)
  if (!pair) return UNKNOWN_USER
  const now = new Date(ctx.now())
  const revoked = await ctx.db.transaction().execute(async (trx) => {
    const ids = await revokeFamilies(trx, { userId: pair.target.id }, 'admin_revoked', now, ctx.sessionHooks)
    await recordUserAction(trx, 'admin_sessions_revoked', { userId: pair.target.id, actor: input.actor, details: { by: BY_ADMIN, adminId: pair.adminId, revokedSessions: ids.length }, at: now })
    return ids
  })
  await Promise.all(revoked.map((id) => resolveFamilyAnomaly(ctx.store, id)))
  return { ok: true as const, revoked: revoked.length }
}

/** Removes the account's TOTP (with its recovery codes) or one passkey; the owner is told by mail. */
export async function adminRemoveFactor(ctx: IamContext, input: AdminActor & { publicId: string; kind: 'totp' | 'passkey'; id?: number }) {
  const pair = await pairOf(ctx.db, input.publicId, input.userId)
  if (!pair) return UNKNOWN_USER
  const now = new Date(ctx.now())
  const userId = pair.target.id
  const removed = await ctx.db.transaction().execute(async (trx) => {
    const gone = input.kind === 'totp' ? await deleteSecondFactor(trx, userId) : input.id !== undefined && (await passkeys.deletePasskey(trx, userId, input.id))
    if (!gone) return false
    const details = input.kind === 'totp' ? { method: 'totp' } : { method: 'passkey', passkeyId: input.id }
    await recordUserAction(trx, 'admin_factor_removed', { userId, actor: input.actor, details: { ...details, by: BY_ADMIN, adminId: pair.adminId }, at: now })
    return true
  })
  if (!removed) return { ok: false as const, code: 'unknown_factor' as const }
  sendSecondFactorNotice(ctx, { userId, change: input.kind === 'totp' ? 'removed' : 'passkey_removed', ipAddress: input.actor.ipAddress })
  return { ok: true as const, removed: input.kind }
}

/** Marks the account's address confirmed (a no-op, still recorded, when it was). */
export async function adminVerifyEmail(ctx: IamContext, input: AdminActor & { publicId: string }) {
  const pair = await pairOf(ctx.db, input.publicId, input.userId)
  if (!pair) return UNKNOWN_USER
  const now = new Date(ctx.now())
  const changed = await ctx.db.transaction().execute(async (trx) => {
    const row = await trx
      .updateTable('users')
      .set({ email_verified: true, first_verified_at: sql<Date>`coalesce(first_verified_at, ${now})`, updated_at: now })
      .where('id', '=', pair.target.id)
      .where('email_verified', '=', false)
      .returning('id')
      .executeTakeFirst()
    await recordUserAction(trx, 'admin_email_verified', { userId: pair.target.id, actor: input.actor, details: { by: BY_ADMIN, adminId: pair.adminId, email: pair.target.email, wasVerified: !row }, at: now })
    return !!row
  })
  return { ok: true as const, wasVerified: !changed }
}

/**
 * Mails the account what "forgot password" would (a reset link, or the way to its provider), at
 * once and without the forgot-password limiter; the mailbox cap still holds it back.
 */
export async function adminSendResetLink(ctx: IamContext, input: AdminActor & { publicId: string }) {
  const pair = await pairOf(ctx.db, input.publicId, input.userId)
  if (!pair) return UNKNOWN_USER
  await sendResetMail(ctx, pair.target.email, input.actor.ipAddress)
  await recordUserAction(ctx.db, 'admin_reset_link_sent', { userId: pair.target.id, actor: input.actor, details: { by: BY_ADMIN, adminId: pair.adminId }, at: new Date(ctx.now()) })
  return { ok: true as const, sent: true as const }
}
