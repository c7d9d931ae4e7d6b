/**
 * Everything full authentication reads from the database, in ONE statement (at most one
 * round trip per authenticated request; see docs/performance.md): the refresh token behind the session cookie and its
 * family, the account, the device of the canary cookie and the user's session counts (anomaly
 * checks 5 and 6). Nothing is cached between requests, so a revocation, logout, ban or role change
 * written by any instance is seen by the very next request everywhere.
 *
 * One row always comes back (the joins hang off a constant), so an unknown cookie still yields the
 * device and vice versa.
 *
 * The family's impersonation marker (impersonated_by, migration 0012) comes in the same row, so
 * an administrator's session on someone's behalf is known without a statement of its own.
 *
 * Only the columns the nine checks and the routes use are read (never the password hash), the SQL
 * text is fixed (no query building per request) and the row is one json array taken apart by hand.
 */
import type { Kysely } from 'kysely'
import { directStatement } from '../../fast/direct'
import type { Database, PictureSource, RefreshToken, SessionFamily, User, Visitor } from '../../db/schema'

/** What the checks need of the refresh token and its family. */
export interface AuthSession {
  token: Pick<RefreshToken, 'status' | 'expires_at' | 'used_at'>
  family: Pick<
    SessionFamily,
    | 'id' | 'user_id' | 'visitor_id' | 'ip_address' | 'fingerprint' | 'created_at' | 'last_seen' | 'last_mfa_at' | 'revoked_at' | 'anomaly_until' | 'reauthenticated_at'
    | 'active_org_id' | 'impersonated_by' | 'impersonation_ends_at'
  >
  /** the public id of the family's user (users.public_id): the `sub` its access tokens carry; null when the account row is gone */
  subject: string | null
}

/** What the authenticated routes show of the account (never its password hash). */
export type AuthAccount = Pick<User, 'id' | 'public_id' | 'email' | 'name' | 'email_verified' | 'roles' | 'locale' | 'time_zone'> & { picture_source: PictureSource }

export interface AuthState {
  session: AuthSession | null
  account: AuthAccount | null
  visitor: Visitor | null
  sessions: { live: number; recent: number }
}

// The row comes back as ONE json array: pg describes and parses every column of a result on every
// execution (a parser lookup, a property on a dictionary-mode object, a regex per timestamp), which
// for ~30 columns was the largest piece of JavaScript in full authentication (docs/performance.md).
// One json column is one JSON.parse. Timestamps arrive as json's ISO 8601 text with microseconds
// and an offset; Date parses that natively and drops the microseconds, as pg's own parser does.
/** a timestamptz in json (ISO 8601), or null */
type Stamp = string | null
type Fingerprint = SessionFamily['fingerprint']
/** The positions of the array, in the order AUTH_STATE_SQL builds it. */
type AuthRow = [
  t_status: RefreshToken['status'] | null, t_expires_at: Stamp, t_used_at: Stamp,
  f_id: string | null, f_user_id: number | null, f_visitor_id: number | null, f_ip_address: string | null, f_fingerprint: Fingerprint,
  f_created_at: Stamp, f_last_seen: Stamp, f_last_mfa_at: Stamp, f_revoked_at: Stamp, f_anomaly_until: Stamp, f_reauthenticated_at: Stamp, f_active_org_id: number | null,
  f_impersonated_by: string | null, f_impersonation_ends_at: Stamp,
  u_id: number | null, u_public_id: string | null, u_email: string | null, u_name: string | null, u_email_verified: boolean | null, u_roles: string[] | null, u_locale: string | null, u_time_zone: string | null, u_picture_source: PictureSource | null,
  v_id: number | null, v_canary_id: string | null, v_visitor_id: string | null, v_ip_address: string | null, v_user_agent: string | null,
  v_fingerprint: Fingerprint, v_score: number | null, v_banned_until: Stamp, v_first_seen: Stamp, v_last_seen: Stamp,
  live: number | null, recent: number | null,
]

// The family and the account are joined through lateral subqueries fenced by OFFSET 0, so each is
// always one primary key probe per request: joined plainly, PostgreSQL may choose a merge join
// that walks the primary key index from the first id up to the row wanted (its estimate assumes
// one row), which for an account created after many others costs the whole index walk on every
// request (docs/performance.md, "Full authentication", Growth).
// The live count reads only session_families: a family is live while not revoked and its active
// refresh token unexpired, and refresh_expires_at is that token's expiry (null without one; written
// by every statement that changes the active token, migration 0006). Probing
// refresh_tokens_one_active_per_family once per family instead would, under rotation churn, meet the
// index entries of versions spent a moment before: for a user with many families, most of
// PostgreSQL's CPU per rotation (docs/performance.md, "Refresh rotation").
// The counts are of devices (distinct visitor_id), not sessions, among the user's sessions opened
// up to the family's own (created_at <= f.created_at): checks 5 and 6 ask the session that made
// the count, never the ones opened before it (evaluate-anomalies.ts). Each reads at most its bound
// of the newest such sessions (sessionCountBounds).
// Both counts are ordered by created_at, which session_families_live_user_idx and
// session_families_user_idx (user_id, created_at) give for free. Without the order, once the
// statistics saw one user holding most families (the bench's user after its 2,000 sign-ins, or a
// busy service account), the generic plan turned each count into a sequential scan of the whole
// table that expected to stop after a few rows (the LIMIT) and read every family of every user
// (the cost: docs/performance.md, "Full authentication", the session counts). With the
// order, a sequential scan must sort all it finds, so the index scan that stops at the limit wins.
// $5 and $6 bound the two counts: the checks only ask whether live reaches the session cap and
// whether recent passes the velocity count, so counting stops there and a user's long history of
// sessions costs nothing per request (the bench's growth row: without the bounds, one user with
// 2,000 sessions makes every request scan them all).
// $1 token hash, $2 canary id, $3 now, $4 start of the velocity window (ISO 8601 text: pg's own
// Date formatting is slower, and the comparisons give both their timestamptz type). Sent with every
// request (until prepared), so without the indentation.
export const AUTH_STATE_SQL = `
    select json_build_array(
      t.status, t.expires_at, t.used_at,
      f.id, f.user_id, f.visitor_id, f.ip_address, f.fingerprint,
      f.created_at, f.last_seen, f.last_mfa_at, f.revoked_at, f.anomaly_until, f.reauthenticated_at, f.active_org_id,
      f.impersonated_by, f.impersonation_ends_at,
      u.id, u.public_id, u.email, u.name, u.email_verified, u.roles, u.locale, u.time_zone, u.picture_source,
      v.id, v.canary_id, v.visitor_id, v.ip_address, v.user_agent,
      v.fingerprint, v.score, v.banned_until, v.first_seen, v.last_seen,
      c.live, c.recent
    ) as r
    from (select 1) as one
    left join refresh_tokens t on t.token_hash = $1
    left join lateral (select f.id, f.user_id, f.visitor_id, f.ip_address, f.fingerprint, f.created_at, f.last_seen, f.last_mfa_at, f.revoked_at, f.anomaly_until, f.reauthenticated_at, f.active_org_id, f.impersonated_by, f.impersonation_ends_at from session_families f where f.id = t.family_id offset 0) f on true
    left join lateral (select u.id, u.public_id, u.email, u.name, u.email_verified, u.roles, u.locale, u.time_zone,
      (select p.source from user_picture_sources p where p.user_id = u.id) as picture_source
      from users u where u.id = f.user_id offset 0) u on true
    left join visitors v on v.canary_id = $2
    left join lateral (
      select
        (select count(distinct l.visitor_id) from (
          select s.visitor_id from session_families s
          where s.user_id = f.user_id and s.revoked_at is null and s.refresh_expires_at > $3 and s.created_at <= f.created_at
          order by s.created_at desc limit $5) l) as live,
        (select count(distinct r.visitor_id) from (
          select s.visitor_id from session_families s where s.user_id = f.user_id and s.created_at > $4 and s.created_at <= f.created_at
          order by s.created_at desc limit $6) r) as recent
    ) c on f.id is not null
  `
  .replace(/\s+/g, ' ')
  .trim()

// sent past Kysely (fast/direct.ts): it runs on every authenticated request
export const readAuthState = directStatement<{ r: AuthRow }>(AUTH_STATE_SQL)

const dateOf = (value: Stamp): Date | null => (value === null ? null : new Date(value))

/** The array as the three rows and the counts (a row is null when its join found nothing). */
function stateOf(r: AuthRow): AuthState {
  const [
    status, expiresAt, usedAt,
    familyId, userId, boundVisitorId, familyIp, familyPrint, createdAt, familySeen, lastMfaAt, revokedAt, anomalyUntil, reauthenticatedAt, activeOrgId,
    impersonatedBy, impersonationEndsAt,
    accountId, publicId, email, name, emailVerified, roles, locale, timeZone, pictureSource,
    visitorRowId, canaryId, visitorId, visitorIp, userAgent, visitorPrint, score, bannedUntil, firstSeen, visitorSeen,
    live, recent,
  ] = r
  const session: AuthSession | null =
    status === null || familyId === null
      ? null
      : {
          token: { status, expires_at: new Date(expiresAt!), used_at: dateOf(usedAt) },
          family: {
            id: familyId,
            user_id: userId!,
            visitor_id: boundVisitorId!,
            ip_address: familyIp,
            fingerprint: familyPrint,
            created_at: new Date(createdAt!),
            last_seen: new Date(familySeen!),
            last_mfa_at: dateOf(lastMfaAt),
            revoked_at: dateOf(revokedAt),
            anomaly_until: dateOf(anomalyUntil),
            reauthenticated_at: dateOf(reauthenticatedAt),
            active_org_id: activeOrgId,
            impersonated_by: impersonatedBy,
            impersonation_ends_at: dateOf(impersonationEndsAt),
          },
          subject: publicId,
        }
  const account: AuthAccount | null =
    accountId === null ? null : { id: accountId, public_id: publicId!, email: email!, name: name!, email_verified: emailVerified!, roles: roles!, locale, time_zone: timeZone, picture_source: pictureSource ?? 'none' }
  const visitor: Visitor | null =
    visitorRowId === null
      ? null
      : {
          id: visitorRowId,
          canary_id: canaryId!,
          visitor_id: visitorId!,
          ip_address: visitorIp,
          user_agent: userAgent,
          fingerprint: visitorPrint,
          score: score!,
          banned_until: dateOf(bannedUntil),
          first_seen: new Date(firstSeen!),
          last_seen: new Date(visitorSeen!),
        }
  return { session, account, visitor, sessions: { live: Number(live ?? 0), recent: Number(recent ?? 0) } }
}

/**
 * `tokenHash`: SHA-256 of the session cookie (null when the cookie has not the shape of a token);
 * `canaryId`: the device cookie (null when absent or malformed). Devices with a live session are
 * counted at `now`, devices with a session opened since `since` (the velocity window); each count
 * reads at most `countUpTo` of the newest sessions.
 */
export async function findAuthState(
  db: Kysely<Database>,
  input: { tokenHash: string | null; canaryId: string | null; now: Date; since: Date; countUpTo: { live: number; recent: number } },
): Promise<AuthState> {
  const { live, recent } = input.countUpTo
  const params = [input.tokenHash, input.canaryId, input.now.toISOString(), input.since.toISOString(), live, recent]
  const rows = await readAuthState(db, params)
  return stateOf(rows[0]!.r)
}
