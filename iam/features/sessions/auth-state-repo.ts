/**
 * Everything full authentication reads from the database, in ONE statement (issue 14: at most one
 * round trip per authenticated request): the refresh token behind the session cookie and its
 * family, the account, the device of the canary cookie and the user's session counts (anomaly
 * checks 5 and 6). Nothing is cached between requests, so a revocation, logout, ban or role change
 * written by any instance is seen by the very next request everywhere.
 *
 * One row always comes back (the joins hang off a constant), so an unknown cookie still yields the
 * device and vice versa.
 *
 * Only the columns the nine checks and the routes use are read (issue 14: every column costs pg a
 * parser per request, a timestamp a Date), the SQL text is fixed (no query building per request) and
 * the row is taken apart by hand.
 */
import { CompiledQuery, type Kysely } from 'kysely'
import type { Database, RefreshToken, SessionFamily, User, Visitor } from '../../db/schema'

/** What the checks need of the refresh token and its family. */
export interface AuthSession {
  token: Pick<RefreshToken, 'status' | 'expires_at' | 'used_at'>
  family: Pick<
    SessionFamily,
    'id' | 'user_id' | 'visitor_id' | 'ip_address' | 'fingerprint' | 'created_at' | 'last_seen' | 'last_mfa_at' | 'revoked_at' | 'anomaly_until'
  >
}

/** What the authenticated routes show of the account (never its password hash). */
export type AuthAccount = Pick<User, 'id' | 'email' | 'name' | 'email_verified' | 'roles'>

export interface AuthState {
  session: AuthSession | null
  account: AuthAccount | null
  visitor: Visitor | null
  sessions: { live: number; recent: number }
}

type Nullable<T> = { [K in keyof T]: T[K] | null }
type Row = Nullable<{
  t_status: RefreshToken['status']
  t_expires_at: Date
  t_used_at: Date | null
  f_id: string
  f_user_id: number
  f_visitor_id: number
  f_ip_address: string | null
  f_fingerprint: SessionFamily['fingerprint']
  f_created_at: Date
  f_last_seen: Date
  f_last_mfa_at: Date | null
  f_revoked_at: Date | null
  f_anomaly_until: Date | null
  u_id: number
  u_email: string
  u_name: string
  u_email_verified: boolean
  u_roles: string[]
  v_id: number
  v_canary_id: string
  v_visitor_id: string
  v_ip_address: string | null
  v_user_agent: string | null
  v_fingerprint: Visitor['fingerprint']
  v_score: number
  v_banned_until: Date | null
  v_first_seen: Date
  v_last_seen: Date
  live: number | string | bigint
  recent: number | string | bigint
}>

/** `alias.column as alias_column` for each name: explicit lists, so a new column is a visible change here. */
const columns = (alias: string, names: readonly string[]) => names.map((n) => `${alias}.${n} as ${alias}_${n}`).join(', ')

// $1 token hash, $2 canary id, $3 now, $4 start of the velocity window
const AUTH_STATE_SQL = `
    select ${columns('t', ['status', 'expires_at', 'used_at'])},
      ${columns('f', ['id', 'user_id', 'visitor_id', 'ip_address', 'fingerprint', 'created_at', 'last_seen', 'last_mfa_at', 'revoked_at', 'anomaly_until'])},
      ${columns('u', ['id', 'email', 'name', 'email_verified', 'roles'])},
      ${columns('v', ['id', 'canary_id', 'visitor_id', 'ip_address', 'user_agent', 'fingerprint', 'score', 'banned_until', 'first_seen', 'last_seen'])},
      c.live, c.recent
    from (select 1) as one
    left join refresh_tokens t on t.token_hash = $1
    left join session_families f on f.id = t.family_id
    left join users u on u.id = f.user_id
    left join visitors v on v.canary_id = $2
    left join lateral (
      select
        count(*) filter (where s.revoked_at is null and exists (
          select 1 from refresh_tokens a where a.family_id = s.id and a.status = 'active' and a.expires_at > $3)) as live,
        count(*) filter (where s.created_at > $4) as recent
      from session_families s where s.user_id = f.user_id
    ) c on f.id is not null
  `

function sessionOf(row: Row): AuthSession | null {
  if (row.t_status === null || row.f_id === null) return null
  return {
    token: { status: row.t_status, expires_at: row.t_expires_at!, used_at: row.t_used_at },
    family: {
      id: row.f_id,
      user_id: row.f_user_id!,
      visitor_id: row.f_visitor_id!,
      ip_address: row.f_ip_address,
      fingerprint: row.f_fingerprint,
      created_at: row.f_created_at!,
      last_seen: row.f_last_seen!,
      last_mfa_at: row.f_last_mfa_at,
      revoked_at: row.f_revoked_at,
      anomaly_until: row.f_anomaly_until,
    },
  }
}

function accountOf(row: Row): AuthAccount | null {
  if (row.u_id === null) return null
  return { id: row.u_id, email: row.u_email!, name: row.u_name!, email_verified: row.u_email_verified!, roles: row.u_roles! }
}

function visitorOf(row: Row): Visitor | null {
  if (row.v_id === null) return null
  return {
    id: row.v_id,
    canary_id: row.v_canary_id!,
    visitor_id: row.v_visitor_id!,
    ip_address: row.v_ip_address,
    user_agent: row.v_user_agent,
    fingerprint: row.v_fingerprint,
    score: row.v_score!,
    banned_until: row.v_banned_until,
    first_seen: row.v_first_seen!,
    last_seen: row.v_last_seen!,
  }
}

/**
 * `tokenHash`: SHA-256 of the session cookie (null when the cookie has not the shape of a token);
 * `canaryId`: the device cookie (null when absent or malformed). Live sessions are counted at
 * `now`, recent ones since `since` (the velocity window).
 */
export async function findAuthState(
  db: Kysely<Database>,
  input: { tokenHash: string | null; canaryId: string | null; now: Date; since: Date },
): Promise<AuthState> {
  const { rows } = await db.executeQuery(CompiledQuery.raw(AUTH_STATE_SQL, [input.tokenHash, input.canaryId, input.now, input.since]))
  const row = rows[0] as Row
  return {
    session: sessionOf(row),
    account: accountOf(row),
    visitor: visitorOf(row),
    sessions: { live: Number(row.live ?? 0), recent: Number(row.recent ?? 0) },
  }
}
