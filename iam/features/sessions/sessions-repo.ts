/**
 * Session families and refresh tokens: SQL only. Functions take `db` or a transaction first.
 */
import { sql, type Kysely, type Transaction } from 'kysely'
import { compiledOnce } from '../../fast/compiled-once'
import { directStatement } from '../../fast/direct'
import type { SessionHooks } from './session-hooks'
import { outboxOfPart, type OutboxPart } from '../webhooks/outbox'
import type { Database, NewSecurityEvent, RefreshToken, SessionFamily } from '../../db/schema'

type Db = Kysely<Database> | Transaction<Database>

export interface NewFamily {
  id: string
  userId: number
  visitorRowId: number
  remember: boolean
  ipAddress: string
  fingerprint: Record<string, unknown> | null
  now: Date
  /** the expiry of its first refresh token */
  refreshExpiresAt: Date
  /** the sign-in itself passed a second factor (TOTP, recovery code, passkey): its last_mfa_at */
  mfaPassed?: boolean
  /** how the sign-in was made (RFC 8176 method references): its sign_in_amr */
  amr?: string
}

export interface NewRefreshToken {
  familyId: string
  hash: string
  expiresAt: Date
  now: Date
}

const familyRow = (family: NewFamily) => ({
  id: family.id,
  user_id: family.userId,
  visitor_id: family.visitorRowId,
  remember: family.remember,
  ip_address: family.ipAddress,
  fingerprint: family.fingerprint ? JSON.stringify(family.fingerprint) : null,
  created_at: family.now,
  last_seen: family.now,
  refresh_expires_at: family.refreshExpiresAt,
  // always present (null or the moment): the sign-in statements are compiled once per shape
  last_mfa_at: family.mfaPassed ? family.now : null,
  sign_in_amr: family.amr ?? null,
})

const tokenRow = (token: NewRefreshToken) => ({
  family_id: token.familyId,
  token_hash: token.hash,
  status: 'active' as const,
  created_at: token.now,
  expires_at: token.expiresAt,
})

export async function insertFamily(db: Db, family: NewFamily): Promise<void> {
  await db.insertInto('session_families').values(familyRow(family)).execute()
}

export async function insertRefreshToken(db: Db, token: NewRefreshToken): Promise<number> {
  const row = await db.insertInto('refresh_tokens').values(tokenRow(token)).returning('id').executeTakeFirstOrThrow()
  return row.id
}

/**
 * A family, its first token and (optionally) the sign-in's audit row in ONE statement: one round
 * trip and no BEGIN/COMMIT on the login path. A statement is atomic on its own, and the token's
 * foreign key to the family is checked at the statement's end, when both rows exist.
 */
export async function insertSessionAtOnce(db: Db, family: NewFamily, token: NewRefreshToken, event?: NewSecurityEvent): Promise<void> {
  if (event) await sessionWithEvent(db, { family: familyRow(family), token: tokenRow(token), event })
  else await sessionAlone(db, { family: familyRow(family), token: tokenRow(token) })
}

type SessionRows = { family: ReturnType<typeof familyRow>; token: ReturnType<typeof tokenRow> }
const withFamily = (db: Kysely<Database>, rows: SessionRows) =>
  db.with('family', (q) => q.insertInto('session_families').values(rows.family).returning('id'))

// every sign-in runs one of them: compiled once (fast/compiled-once.ts)
export const sessionAlone = compiledOnce((db: Kysely<Database>, rows: SessionRows) => withFamily(db, rows).insertInto('refresh_tokens').values(rows.token))
export const sessionWithEvent = compiledOnce((db: Kysely<Database>, rows: SessionRows & { event: NewSecurityEvent }) =>
  withFamily(db, rows)
    .with('event', (q) => q.insertInto('security_events').values(rows.event).returning('id'))
    .insertInto('refresh_tokens')
    .values(rows.token),
)

/**
 * A sign-in's session, its audit row and its webhook's outbox rows (`outbox`, features/webhooks/
 * outbox.ts outboxPartOf) in one statement: a statement is atomic by itself, so the rows commit
 * together or not at all, as in a transaction, with one round trip instead of four.
 */
export async function insertSessionWithOutbox(db: Kysely<Database>, family: NewFamily, token: NewRefreshToken, event: NewSecurityEvent, outbox: OutboxPart): Promise<void> {
  await sessionWithOutbox(db, { family: familyRow(family), token: tokenRow(token), event, outbox })
}

// every sign-in with an endpoint subscribed runs it: compiled once (fast/compiled-once.ts); building
// and compiling it per sign-in was ~4% of the main thread's time in the bench's login row with ten
// endpoints
export const sessionWithOutbox = compiledOnce((db: Kysely<Database>, rows: SessionRows & { event: NewSecurityEvent; outbox: OutboxPart }) =>
  withFamily(db, rows)
    .with('event', (q) => q.insertInto('security_events').values(rows.event).returning('id'))
    // a raw statement is an operation node source, which Kysely takes as a CTE's body as it is,
    // without the parentheses it puts around a builder's
    .with('outbox', sql`(${outboxOfPart(rows.outbox)})` as unknown as (q: unknown) => never)
    .insertInto('refresh_tokens')
    .values(rows.token),
)

/**
 * A session a platform administrator opens on the account's behalf (features/admin/impersonation.ts):
 * its family marked with the administrator's public id and its hard end, and its first token, inside
 * the caller's transaction (which also records the start on both accounts).
 */
export async function insertImpersonatedSession(trx: Transaction<Database>, family: NewFamily, token: NewRefreshToken, by: { adminId: string; endsAt: Date }): Promise<void> {
  await trx.insertInto('session_families').values({ ...familyRow(family), impersonated_by: by.adminId, impersonation_ends_at: by.endsAt }).execute()
  await insertRefreshToken(trx, token)
}

export interface SessionState {
  token: RefreshToken
  family: SessionFamily
}

/** The token row behind a hash and its family. */
export async function findSessionByTokenHash(db: Db, hash: string): Promise<SessionState | null> {
  const token = await db.selectFrom('refresh_tokens').selectAll().where('token_hash', '=', hash).executeTakeFirst()
  if (!token) return null
  const family = await db.selectFrom('session_families').selectAll().where('id', '=', token.family_id).executeTakeFirst()
  return family ? { token, family } : null
}

/**
 * The token that replaced the one behind `hash` (the duplicate-refresh path: its grace pair is
 * filed under both hashes): its hash and expiry, or null when it was not rotated into a successor.
 */
export async function findReplacement(db: Db, hash: string): Promise<{ tokenHash: string; expiresAt: Date } | null> {
  const row = await db
    .selectFrom('refresh_tokens as old')
    .innerJoin('refresh_tokens as next', 'next.id', 'old.replaced_by')
    .select(['next.token_hash as tokenHash', 'next.expires_at as expiresAt'])
    .where('old.token_hash', '=', hash)
    .executeTakeFirst()
  return row ?? null
}

/**
 * Re-issue inside a family (MFA, password change; the caller holds the family's row lock): the
 * active token is retired as revoked (a later use is a dead session, not a theft signal), `token`
 * becomes the active one and the family's refresh_expires_at follows it.
 */
export async function replaceActiveToken(db: Db, token: NewRefreshToken): Promise<void> {
  await db
    .updateTable('refresh_tokens')
    .set({ status: 'revoked', used_at: token.now })
    .where('family_id', '=', token.familyId)
    .where('status', '=', 'active')
    .execute()
  await insertRefreshToken(db, token)
  await db.updateTable('session_families').set({ refresh_expires_at: token.expiresAt }).where('id', '=', token.familyId).execute()
}

/** What a rotation writes: the replacement's hash, the clock and the lifetimes that bound it. */
export interface RotationInput {
  hash: string
  newHash: string
  now: Date
  refreshTtlMs: number
  rememberTtlMs: number
  maxSessionLifeMs: number
  /** the family's last_seen moves to `now` when older than this (due, by the guard's read); null: not due */
  touchBefore: Date | null
}

/** `replacedBy`: the successor's id, null when the token was spent without one; `expiresAt`: the successor's expiry. */
export interface RotatedRow {
  replacedBy: number | null
  expiresAt: Date
}

// $1 the spent token's hash, $2 the replacement's hash, $3 now (ISO 8601 text, as auth-state-repo
// sends it), $4 MAX_SESSION_LIFE, $5 the remember TTL, $6 the normal TTL (ms), $7 the family's
// last_seen threshold or null (touchFamily's rule: moved only when older). One fixed text, sent as
// it is (no query building per rotation) and prepared by name (fast/prepared.ts).
// least() skips a null, so only an impersonated session's hard end (migration 0012) bounds it.
// `fam` locks the family row FIRST: the statement then updates it (refresh_expires_at, which the
// live-session count reads, and a due last_seen), and every other writer of a family and its tokens
// (revocation, re-issue) locks the family before the tokens. Spending the token first and then
// waiting for the family could deadlock with a revocation holding the family and waiting for the
// token. Losers of a race wait here for the winner's commit, then find the token spent (the
// UPDATE re-checks `status = 'active'` on the winner's version) and match nothing.
const ROTATION_SQL = `
    with fam as materialized (
      select f.id, f.revoked_at, f.created_at, f.remember, f.impersonation_ends_at from session_families f
      where f.id = (select family_id from refresh_tokens where token_hash = $1)
      for no key update
    ),
    next_id as (select nextval(pg_get_serial_sequence('refresh_tokens', 'id'))::integer as id),
    old as (
      update refresh_tokens set status = 'rotated', used_at = $3::timestamptz,
        replaced_by = case
          when f.revoked_at is null and f.created_at + $4::bigint * interval '1 millisecond' > $3::timestamptz
            and refresh_tokens.expires_at > $3::timestamptz
          then (select id from next_id) end
      from fam f
      where refresh_tokens.token_hash = $1 and refresh_tokens.status = 'active' and f.id = refresh_tokens.family_id
      returning refresh_tokens.family_id, refresh_tokens.replaced_by,
        least($3::timestamptz + case when f.remember then $5::bigint else $6::bigint end * interval '1 millisecond',
              f.created_at + $4::bigint * interval '1 millisecond', f.impersonation_ends_at) as new_expires_at
    ),
    inserted as (
      insert into refresh_tokens (id, family_id, token_hash, status, created_at, expires_at) overriding system value
      select replaced_by, family_id, $2, 'active', $3::timestamptz, new_expires_at from old where replaced_by is not null
    ),
    family as (
      update session_families set
        refresh_expires_at = case when old.replaced_by is not null then old.new_expires_at end,
        last_seen = case when old.replaced_by is not null and $7::timestamptz is not null and last_seen < $7::timestamptz
          then $3::timestamptz else last_seen end
      from old where session_families.id = old.family_id
    )
    select replaced_by as "replacedBy", new_expires_at as "expiresAt" from old
  `
  .replace(/\s+/g, ' ')
  .trim()

/**
 * A whole rotation in ONE statement, committed on its own (no BEGIN/COMMIT): spends the active
 * token (`status = 'active'` is re-checked after the row lock, so among parallel rotations exactly
 * one matches) and inserts the replacement under the id the old row links to, only when the family
 * is still live and the old token unexpired at this instant (a revocation that committed after the
 * caller's read still wins). The replacement expires at the remember/normal TTL, never past
 * MAX_SESSION_LIFE from the family's start (session-service.refreshExpiry, in SQL), nor past an
 * impersonated session's end. The family's
 * refresh_expires_at becomes the successor's expiry (null without one); a rotation that gets a
 * successor also moves the family's last_seen when the guard found it due (`touchBefore`).
 * A data-modifying WITH runs to completion whether or not the final SELECT reads it. Undefined
 * when the token is not active (rotated, revoked or unknown); `replacedBy` null when it was spent
 * without a successor (family revoked, too old, token expired).
 */
// sent past Kysely (fast/direct.ts): every rotation runs it
export const sendRotation = directStatement<RotatedRow>(ROTATION_SQL)

export async function rotateInOneStatement(db: Db, input: RotationInput): Promise<RotatedRow | undefined> {
  const params = [
    input.hash, input.newHash, input.now.toISOString(), input.maxSessionLifeMs, input.rememberTtlMs, input.refreshTtlMs,
    input.touchBefore?.toISOString() ?? null,
  ]
  return (await sendRotation(db, params))[0]
}

/**
 * Revokes families and their tokens. `where` picks the families (`activeOrgId`: those acting for that
 * organization). An account-wide end (a `userId` without a `familyId` or `activeOrgId`) also runs the context's account-sessions-revoked listeners (`hooks`,
 * session-hooks.ts, required then) on the same `db`, so pass the transaction to keep both atomic.
 */
export async function revokeFamilies(
  db: Db,
  where: { familyId?: string; userId?: number; exceptFamilyId?: string; activeOrgId?: number },
  reason: string,
  now: Date,
  hooks?: SessionHooks,
): Promise<string[]> {
  // refresh_expires_at follows the active token, which is revoked below
  let query = db
    .updateTable('session_families')
    .set({ revoked_at: now, revoked_reason: reason, refresh_expires_at: null })
    .where('revoked_at', 'is', null)
  if (where.familyId) query = query.where('id', '=', where.familyId)
  if (where.userId !== undefined) query = query.where('user_id', '=', where.userId)
  if (where.exceptFamilyId) query = query.where('id', '!=', where.exceptFamilyId)
  if (where.activeOrgId !== undefined) query = query.where('active_org_id', '=', where.activeOrgId)
  const revoked = (await query.returning('id').execute()).map((r) => r.id)
  if (revoked.length) {
    await db.updateTable('refresh_tokens').set({ status: 'revoked' }).where('family_id', 'in', revoked).where('status', '=', 'active').execute()
  }
  // An account-wide end (password change or reset, a ban, sign out everywhere else, an email
  // change) also ends what hangs on the account's sessions, e.g. the OpenID Provider's grants:
  // the apps it signed into lose their tokens at once (the listener of features/oidc/accounts.ts).
  // The sessions acting for one organization (SCIM deprovisioning) are not the account's: what
  // hangs on the account stays.
  if (!where.familyId && where.userId !== undefined && where.activeOrgId === undefined) {
    // never silently: a revocation that skipped the listeners would leave the account's grants alive
    if (!hooks) throw new Error('revokeFamilies: an account-wide revocation needs the context session hooks (ctx.sessionHooks)')
    await hooks.accountSessionsRevoked(db, where.userId)
  }
  return revoked
}

/** Why a family was revoked (revokeFamilies' reason), or null: read only once a revoked session comes back. */
export async function familyRevokedReason(db: Db, familyId: string): Promise<string | null> {
  const row = await db.selectFrom('session_families').select('revoked_reason').where('id', '=', familyId).executeTakeFirst()
  return row?.revoked_reason ?? null
}

/**
 * Moves last_seen forward at most once per `everyMs` per family: idle detection needs no finer
 * grain, and most requests then cost no write.
 */
export async function touchFamily(db: Db, familyId: string, now: Date, everyMs: number): Promise<void> {
  await db
    .updateTable('session_families')
    .set({ last_seen: now })
    .where('id', '=', familyId)
    .where('last_seen', '<', new Date(now.getTime() - everyMs))
    .execute()
}

/** After MFA: binds the device, IP and fingerprint and records when MFA passed. */
export async function bindFamily(
  db: Db,
  familyId: string,
  bind: { visitorRowId: number; ipAddress: string; fingerprint: Record<string, unknown> | null; now: Date },
): Promise<void> {
  await db
    .updateTable('session_families')
    .set({
      visitor_id: bind.visitorRowId,
      ip_address: bind.ipAddress,
      fingerprint: bind.fingerprint ? JSON.stringify(bind.fingerprint) : null,
      last_mfa_at: bind.now,
      last_seen: bind.now,
    })
    .where('id', '=', familyId)
    .execute()
}
