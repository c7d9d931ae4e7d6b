/**
 * Everything full authentication reads from the database, in ONE statement (issue 14: at most one
 * round trip per authenticated request): the refresh token behind the session cookie and its
 * family, the account, the device of the canary cookie and the user's session counts (anomaly
 * checks 5 and 6). Nothing is cached between requests, so a revocation, logout, ban or role change
 * written by any instance is seen by the very next request everywhere.
 *
 * One row always comes back (the joins hang off a constant), so an unknown cookie still yields the
 * device and vice versa.
 */
import { sql, type Kysely } from 'kysely'
import type { Database, RefreshToken, SessionFamily, User, Visitor } from '../../db/schema'
import type { SessionState } from './sessions-repo'

export interface AuthState {
  session: SessionState | null
  account: User | null
  visitor: Visitor | null
  sessions: { live: number; recent: number }
}

type Prefixed<P extends string, T> = { [K in keyof T & string as `${P}${K}`]: T[K] | null }
type Row = Prefixed<'t_', RefreshToken> &
  Prefixed<'f_', SessionFamily> &
  Prefixed<'u_', User> &
  Prefixed<'v_', Visitor> & { live: number | string | bigint | null; recent: number | string | bigint | null }

/** The columns of `alias` as `<alias>_<column>`: explicit lists, so a new column is a visible change here. */
const columns = (alias: string, names: readonly string[]) => sql.raw(names.map((n) => `${alias}.${n} as ${alias}_${n}`).join(', '))

const TOKEN_COLUMNS = ['id', 'family_id', 'token_hash', 'status', 'created_at', 'expires_at', 'used_at', 'replaced_by'] as const
const FAMILY_COLUMNS = ['id', 'user_id', 'visitor_id', 'remember', 'ip_address', 'fingerprint', 'created_at', 'last_seen', 'last_mfa_at', 'revoked_at', 'revoked_reason'] as const
const USER_COLUMNS = ['id', 'email', 'name', 'password_hash', 'email_verified', 'terms_consent', 'roles', 'banned_until', 'created_at', 'updated_at'] as const
const VISITOR_COLUMNS = ['id', 'canary_id', 'visitor_id', 'ip_address', 'user_agent', 'fingerprint', 'score', 'banned_until', 'first_seen', 'last_seen'] as const

/** The `<prefix>_` columns of a row as a table row, or null when the join found nothing. */
function pick<T>(row: Row, prefix: string, names: readonly string[]): T | null {
  const record = row as unknown as Record<string, unknown>
  if (record[`${prefix}_id`] === null || record[`${prefix}_id`] === undefined) return null
  return Object.fromEntries(names.map((n) => [n, record[`${prefix}_${n}`]])) as T
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
  const { rows } = await sql<Row>`
    select ${columns('t', TOKEN_COLUMNS)}, ${columns('f', FAMILY_COLUMNS)}, ${columns('u', USER_COLUMNS)},
      ${columns('v', VISITOR_COLUMNS)}, c.live, c.recent
    from (select 1) as one
    left join refresh_tokens t on t.token_hash = ${input.tokenHash}
    left join session_families f on f.id = t.family_id
    left join users u on u.id = f.user_id
    left join visitors v on v.canary_id = ${input.canaryId}
    left join lateral (
      select
        count(*) filter (where s.revoked_at is null and exists (
          select 1 from refresh_tokens a where a.family_id = s.id and a.status = 'active' and a.expires_at > ${input.now})) as live,
        count(*) filter (where s.created_at > ${input.since}) as recent
      from session_families s where s.user_id = f.user_id
    ) c on f.id is not null
  `.execute(db)
  const row = rows[0]!
  const token = pick<RefreshToken>(row, 't', TOKEN_COLUMNS)
  const family = pick<SessionFamily>(row, 'f', FAMILY_COLUMNS)
  return {
    session: token && family ? { token, family } : null,
    account: pick<User>(row, 'u', USER_COLUMNS),
    visitor: pick<Visitor>(row, 'v', VISITOR_COLUMNS),
    sessions: { live: Number(row.live ?? 0), recent: Number(row.recent ?? 0) },
  }
}
