/**
 * The real statements of the hand-made data layer (compiledOnce and directStatement in iam/features)
 * with the rows they run against and the arguments they are run with, for the equivalence tests:
 * compiled-once-equivalence, direct-equivalence and prepared-equivalence. Every argument list has
 * cases that match and cases that match nothing; the writes also run into refusals (a duplicate key).
 *
 * `reset` puts the database back to the same rows (identity counters included), so a write can run
 * once one way and once the other from the same state, and the two ends compare as a whole.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { sql, type Kysely } from 'kysely'
import type { Database } from '../../iam/db/schema'
import { countUsesStatement } from '../../iam/features/api-tokens/repository'
import { visitorByCanary } from '../../iam/features/devices/visitors-repo'
import { introspectionRow } from '../../iam/fast/introspection'
import { clientRow, insertClientCredentials } from '../../iam/fast/client-credentials'
import { insertRefreshedAccessToken, refreshRow } from '../../iam/fast/refresh-token'
import { grantBoundById, grantBoundByUid, grantBoundByUserCode, payloadById, upsertPayload } from '../../iam/features/oidc/adapter'
import { clientForProvider } from '../../iam/features/oidc/clients'
import { securityEventRow } from '../../iam/features/security-events/repository'
import { readAuthState } from '../../iam/features/sessions/auth-state-repo'
import { sendRotation, sessionAlone, sessionWithEvent, sessionWithOutbox } from '../../iam/features/sessions/sessions-repo'
import { patternsFor } from '../../iam/features/webhooks/event-map'
import { deviceAndLoginAccount } from '../../iam/features/users/users-repo'

export const NOW = new Date('2026-11-27T12:00:00.000Z')
const at = (ms: number) => new Date(NOW.getTime() + ms)
const HOUR = 3_600_000
const DAY = 24 * HOUR

/** The tables the statements read or write, emptied (identity counters restarted) and re-seeded by `reset`. */
const TABLES = ['users', 'visitors', 'totp_factors', 'session_families', 'refresh_tokens', 'security_events', 'api_tokens', 'oidc_clients', 'oidc_payloads', 'webhook_endpoints', 'webhook_deliveries'] as const

async function seed(db: Kysely<Database>): Promise<void> {
  const user = (id: number, email: string, over: Record<string, unknown> = {}) => ({
    email, name: `user ${id}`, password_hash: `hash-${id}`, roles: ['user'], public_id: `00000000-0000-4000-8000-00000000000${id}`,
    created_at: at(-30 * DAY), updated_at: at(-30 * DAY), ...over,
  })
  await db.insertInto('users').values([
    user(1, 'ann@example.com', { email_verified: true }),
    user(2, 'Bob@Example.com', { banned_until: at(HOUR), roles: ['user', 'admin'] }),
    user(3, 'cy@example.com', { password_hash: null }),
  ]).execute()
  const visitor = (canary: string, over: Record<string, unknown> = {}) => ({
    canary_id: canary, visitor_id: `visitor-${canary}`, ip_address: '198.51.100.1', user_agent: 'agent', fingerprint: JSON.stringify({ os: 'x' }),
    first_seen: at(-DAY), last_seen: at(-HOUR), ...over,
  })
  await db.insertInto('visitors').values([visitor('canary-1'), visitor('canary-2', { score: 90, banned_until: at(HOUR), fingerprint: null }), visitor('canary-3')]).execute()
  await db.insertInto('totp_factors').values([
    { user_id: 2, secret_sealed: 's2', created_at: at(-DAY), enabled_at: at(-DAY) },
    { user_id: 3, secret_sealed: 's3', created_at: at(-DAY), enabled_at: null },
  ]).execute()
  const family = (id: string, userId: number, visitorId: number, over: Record<string, unknown> = {}) => ({
    id, user_id: userId, visitor_id: visitorId, ip_address: '198.51.100.1', fingerprint: JSON.stringify({ os: 'x' }),
    created_at: at(-HOUR), last_seen: at(-10 * 60_000), refresh_expires_at: at(DAY), ...over,
  })
  await db.insertInto('session_families').values([
    family('f-live', 1, 1, { last_mfa_at: at(-HOUR), sign_in_amr: 'pwd' }),
    family('f-remember', 1, 1, { remember: true, created_at: at(-2 * HOUR), last_seen: at(-2 * HOUR) }),
    family('f-revoked', 1, 2, { revoked_at: at(-60_000), revoked_reason: 'logout', refresh_expires_at: null }),
    family('f-old', 2, 3, { created_at: at(-40 * DAY), anomaly_until: at(HOUR), reauthenticated_at: at(-HOUR) }),
    family('f-recent', 1, 3, { created_at: at(-60_000) }),
  ]).execute()
  const token = (familyId: string, hash: string, over: Record<string, unknown> = {}) => ({
    family_id: familyId, token_hash: hash, status: 'active' as const, created_at: at(-HOUR), expires_at: at(DAY), ...over,
  })
  await db.insertInto('refresh_tokens').values([
    token('f-live', 'rt-live-rotated', { status: 'rotated', used_at: at(-30 * 60_000), expires_at: at(DAY) }),
    token('f-live', 'rt-live'),
    token('f-remember', 'rt-remember'),
    token('f-revoked', 'rt-revoked', { status: 'revoked' }),
    // an active token in a revoked family: a revocation that committed after a read of the token
    token('f-revoked', 'rt-revoked-active'),
    token('f-old', 'rt-old'),
    token('f-recent', 'rt-expired', { expires_at: at(-60_000) }),
  ]).execute()
  await sql`update refresh_tokens set replaced_by = (select id from refresh_tokens where token_hash = 'rt-live') where token_hash = 'rt-live-rotated'`.execute(db)
  const apiToken = (hash: string, over: Record<string, unknown> = {}) => ({
    user_id: 1, name: `token ${hash}`, hashed_token: hash, public_identifier: `pub-${hash}`, privilege_type: 'full' as const,
    created_at: at(-DAY), usage_count: 7, ...over,
  })
  await db.insertInto('api_tokens').values([
    apiToken('tok-full'),
    apiToken('tok-ip', { restricted_to_ip_address: JSON.stringify(['203.0.113.5', '2001:db8::1']), last_used: at(-HOUR) }),
    apiToken('tok-empty-list', { restricted_to_ip_address: JSON.stringify([]) }),
    apiToken('tok-expiring', { expires_at: at(60_000), privilege_type: 'demo' }),
    apiToken('tok-invalid', { valid: 0 }),
    apiToken('tok-suspended', { suspended_until: at(HOUR), user_id: 2 }),
    apiToken('tok-custom', { privilege_type: 'custom', usage_count: 0 }),
  ]).execute()
  const client = (id: string, metadata: Record<string, unknown>, sealed: string | null) => ({
    client_id: id, metadata: JSON.stringify(metadata), secret_sealed: sealed, created_at: at(-DAY), updated_at: at(-DAY),
  })
  await db.insertInto('oidc_clients').values([
    client('app', { token_endpoint_auth_method: 'client_secret_post' }, 'sealed-app'),
    client('basic', {}, 'sealed-basic'),
    client('pairwise', { subject_type: 'pairwise', introspection_signed_response_alg: 'RS256' }, 'sealed-pw'),
    client('public', { token_endpoint_auth_method: 'none' }, null),
  ]).execute()
  const payload = (model: string, id: string, body: Record<string, unknown>, over: Record<string, unknown> = {}) => ({
    model, id, payload: JSON.stringify({ kind: model, jti: id, ...body }), grant_id: (body.grantId as string | undefined) ?? null,
    user_code: null, uid: null, account_id: (body.accountId as string | undefined) ?? null, expires_at: at(HOUR), consumed_at: null, ...over,
  })
  const exp = Math.floor(at(HOUR).getTime() / 1000)
  await db.insertInto('oidc_payloads').values([
    payload('Grant', 'grant-1', { clientId: 'app', accountId: 'acc-1', exp }),
    payload('AccessToken', 'at-1', { clientId: 'app', accountId: 'acc-1', grantId: 'grant-1', exp, iat: exp - 3600, scope: 'openid', aud: ['api'] }),
    payload('AccessToken', 'at-consumed', { clientId: 'basic', accountId: 'acc-1', grantId: 'grant-1', exp }, { consumed_at: at(-60_000) }),
    payload('AccessToken', 'at-bound', { clientId: 'app', accountId: 'acc-1', grantId: 'grant-1', exp, jkt: 'thumb' }),
    payload('AccessToken', 'at-extra', { clientId: 'pairwise', accountId: 'acc-1', exp, extra: { a: 1 } }),
    payload('ClientCredentials', 'cc-1', { clientId: 'basic', exp, scope: 'api' }),
    payload('RefreshToken', 'rt-oidc', { clientId: 'app', accountId: 'acc-1', grantId: 'grant-1', exp }),
    payload('RefreshToken', 'rt-user', { clientId: 'basic', accountId: '00000000-0000-4000-8000-000000000001', grantId: 'grant-1', exp }),
    payload('DeviceCode', 'dc-1', { clientId: 'app', accountId: 'acc-1', grantId: 'grant-1', exp, userCode: 'CODE-1', uid: 'uid-dc' }, { user_code: 'CODE-1', uid: 'uid-dc' }),
  ]).execute()
  const endpoint = (publicId: string, eventTypes: string[], over: Record<string, unknown> = {}) => ({
    public_id: publicId, url: `https://hooks.example.com/${publicId}`, event_types: JSON.stringify(eventTypes), secret_sealed: `sealed-${publicId}`,
    created_at: at(-DAY), updated_at: at(-DAY), ...over,
  })
  await db.insertInto('webhook_endpoints').values([
    endpoint('ep_all', ['*']),
    endpoint('ep_sessions', ['session.*']),
    endpoint('ep_users', ['user.*']),
    endpoint('ep_off', ['*'], { enabled: false, disabled_reason: 'admin' }),
  ]).execute()
  // a pending delivery about user 1 for ep_all: a new one about the same account waits behind it
  await sql`insert into webhook_deliveries (msg_id, endpoint_id, event_type, account_key, payload, status, attempts, next_attempt_at, created_at)
    select 'msg_seeded', e.id, 'session.created', '00000000-0000-4000-8000-000000000001', '{}'::jsonb, 'pending', 0, ${at(-60_000).toISOString()}::timestamptz, ${at(-60_000).toISOString()}::timestamptz
    from webhook_endpoints e where e.public_id = 'ep_all'`.execute(db)
}

/** Empties the tables (identity counters restarted) and seeds the same rows again. */
export async function reset(db: Kysely<Database>): Promise<void> {
  // DELETE, children first, then each serial back to 1: on PostgreSQL a TRUNCATE makes new files
  // for every table and index it empties, which for these few rows cost most of a case's time (the
  // cases reset the tables two or three times per argument set)
  for (const table of [...TABLES].reverse()) await sql`delete from ${sql.table(table)}`.execute(db)
  let owned = sequencesOf.get(db)
  if (!owned) {
    const { rows } = await sql<{ s: string | null }>`
      select pg_get_serial_sequence(quote_ident(table_name), column_name) as s from information_schema.columns
      where table_schema = current_schema() and table_name in (${sql.join([...TABLES])})`.execute(db)
    owned = rows.flatMap((row) => (row.s ? [row.s] : []))
    sequencesOf.set(db, owned)
  }
  for (const sequence of owned) await sql`select setval(${sequence}, 1, false)`.execute(db)
  await seed(db)
}

/** The sequences behind the tables' serial and identity columns, per database: read once. */
const sequencesOf = new WeakMap<Kysely<Database>, string[]>()

/** Every row of the tables, each table's rows in a fixed order: the end state of a write. */
export async function snapshot(db: Kysely<Database>): Promise<Record<string, unknown[]>> {
  const tables: Record<string, unknown[]> = {}
  for (const table of TABLES) {
    // a delivery's msg_id is random (gen_random_uuid()): its shape is checked, its value left out
    const rows = (await db.selectFrom(table).selectAll().execute()).map((row) =>
      'msg_id' in row && /^msg_[0-9a-f]{32}$/.test(String(row.msg_id)) ? { ...row, msg_id: 'msg_<random>' } : row)
    tables[table] = rows.map((row) => [JSON.stringify(row), row] as const).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, row]) => row)
  }
  return tables
}

/** What a statement answered: its rows and affected-row count, or the SQLSTATE it was refused with. */
export type Outcome = { rows: unknown[]; affected?: string } | { refused: string }

export async function outcomeOf(run: () => Promise<{ rows: unknown[]; numAffectedRows?: bigint }>): Promise<Outcome> {
  try {
    const result = await run()
    return result.numAffectedRows === undefined ? { rows: result.rows } : { rows: result.rows, affected: String(result.numAffectedRows) }
  } catch (error) {
    const code = (error as { code?: unknown }).code
    if (typeof code !== 'string') throw error
    return { refused: code }
  }
}

// ---- compiledOnce statements ------------------------------------------------------------------

type AnyCompiled = { (db: Kysely<Database>, args: never): Promise<{ rows: unknown[]; numAffectedRows?: bigint }>; build: (db: Kysely<Database>, args: never) => { compile(): unknown } }

export interface CompiledCase {
  /** the exported const in iam/features */
  name: string
  statement: AnyCompiled
  writes: boolean
  /** argument sets: matching, matching nothing, refused */
  args: Array<Record<string, unknown>>
}

const newFamily = (id: string, over: Record<string, unknown> = {}) => ({
  // the keys of sessions-repo's familyRow, all present as there
  id, user_id: 1, visitor_id: 1, remember: false, ip_address: '198.51.100.7', fingerprint: JSON.stringify({ os: 'y' }),
  created_at: NOW, last_seen: NOW, refresh_expires_at: at(DAY), last_mfa_at: null, sign_in_amr: null, ...over,
})
const newToken = (familyId: string, hash: string) => ({ family_id: familyId, token_hash: hash, status: 'active', created_at: NOW, expires_at: at(DAY) })
const loginEvent = (userId: number | null) =>
  securityEventRow({ type: 'login_succeeded', userId, visitorRowId: 1, ipAddress: '198.51.100.7', details: { method: 'password' }, at: NOW })

/** features/webhooks/outbox.ts outboxPartOf's values for a webhook of `type` about user `userId`. */
const outboxPart = (type: string, userId: number, data: Record<string, string> = { method: 'password' }) => {
  const [pattern1, pattern2, pattern3] = patternsFor(type)
  return { type, userId, data: JSON.stringify(data), at: NOW.toISOString(), pattern1, pattern2, pattern3, organizationId: null }
}

const uses = (hash: string, over: Record<string, unknown> = {}) => ({ hash, privilege: 'full', at: NOW, ip: '198.51.100.9', bypassIp: false, uses: 1, ...over })

/** A row of oidc_payloads as the provider's adapter writes it (features/oidc/adapter.ts upsert). */
const oidcRow = (model: string, id: string, over: Record<string, unknown> = {}) => ({
  model, id, payload: JSON.stringify({ kind: model, jti: id, clientId: 'basic' }), grant_id: 'grant-1', user_code: null, uid: null, account_id: 'acc-1', expires_at: at(HOUR), ...over,
})

export const COMPILED_CASES: CompiledCase[] = [
  {
    name: 'visitorByCanary',
    statement: visitorByCanary as unknown as AnyCompiled,
    writes: false,
    args: [{ canaryId: 'canary-1' }, { canaryId: 'canary-2' }, { canaryId: 'no-such-canary' }, { canaryId: '' }],
  },
  {
    name: 'deviceAndLoginAccount',
    statement: deviceAndLoginAccount as unknown as AnyCompiled,
    writes: false,
    args: [
      { canaryId: 'canary-1', email: 'ann@example.com' },
      // the address is compared lower-cased against lower(email): the stored one is mixed case
      { canaryId: 'canary-2', email: 'bob@example.com' },
      { canaryId: '', email: 'cy@example.com' },
      { canaryId: 'canary-3', email: 'nobody@example.com' },
      { canaryId: 'no-such-canary', email: 'Bob@Example.com' },
    ],
  },
  {
    name: 'countUsesStatement',
    statement: countUsesStatement as unknown as AnyCompiled,
    writes: true,
    args: [
      uses('tok-full'),
      uses('tok-full', { uses: 25, ip: null }),
      uses('tok-full', { privilege: 'demo' }),
      uses('tok-ip', { ip: '203.0.113.5' }),
      uses('tok-ip', { ip: '2001:db8::1', uses: 3 }),
      uses('tok-ip', { ip: '203.0.113.6' }),
      uses('tok-ip', { ip: null }),
      uses('tok-ip', { ip: '203.0.113.6', bypassIp: true }),
      uses('tok-empty-list'),
      uses('tok-expiring', { privilege: 'demo' }),
      uses('tok-expiring', { privilege: 'demo', at: at(60_000) }),
      uses('tok-invalid'),
      uses('tok-suspended'),
      uses('tok-suspended', { at: at(HOUR) }),
      uses('tok-custom', { privilege: 'custom' }),
      uses('no-such-token'),
    ],
  },
  {
    name: 'sessionAlone',
    statement: sessionAlone as unknown as AnyCompiled,
    writes: true,
    args: [
      { family: newFamily('f-new'), token: newToken('f-new', 'rt-new') },
      { family: newFamily('f-new-mfa', { remember: true, fingerprint: null, last_mfa_at: NOW, sign_in_amr: 'pwd otp', user_id: 2, visitor_id: 3 }), token: newToken('f-new-mfa', 'rt-new-mfa') },
      // refused: the family id exists, and a token hash that exists
      { family: newFamily('f-live'), token: newToken('f-live', 'rt-other') },
      { family: newFamily('f-dup-token'), token: newToken('f-dup-token', 'rt-live') },
      // refused: the account does not exist
      { family: newFamily('f-orphan', { user_id: 99 }), token: newToken('f-orphan', 'rt-orphan') },
    ],
  },
  {
    name: 'sessionWithEvent',
    statement: sessionWithEvent as unknown as AnyCompiled,
    writes: true,
    args: [
      { family: newFamily('f-new'), token: newToken('f-new', 'rt-new'), event: loginEvent(1) },
      { family: newFamily('f-new-2', { user_id: 3, remember: true }), token: newToken('f-new-2', 'rt-new-2'), event: loginEvent(3) },
      { family: newFamily('f-live'), token: newToken('f-live', 'rt-other'), event: loginEvent(1) },
      { family: newFamily('f-dup-token'), token: newToken('f-dup-token', 'rt-live'), event: loginEvent(1) },
    ],
  },
  {
    name: 'sessionWithOutbox',
    statement: sessionWithOutbox as unknown as AnyCompiled,
    writes: true,
    args: [
      // user 1: ep_all (queued behind its pending one) and ep_sessions; user 3: nothing pending; a type no
      // enabled endpoint but ep_all takes; a duplicate token: refused, nothing written
      { family: newFamily('f-new'), token: newToken('f-new', 'rt-new'), event: loginEvent(1), outbox: outboxPart('session.created', 1) },
      { family: newFamily('f-new-2', { user_id: 3, remember: true }), token: newToken('f-new-2', 'rt-new-2'), event: loginEvent(3), outbox: outboxPart('session.created', 3, { method: 'passkey' }) },
      { family: newFamily('f-new-3', { user_id: 2 }), token: newToken('f-new-3', 'rt-new-3'), event: loginEvent(2), outbox: outboxPart('factor.added', 2) },
      { family: newFamily('f-dup-token'), token: newToken('f-dup-token', 'rt-live'), event: loginEvent(1), outbox: outboxPart('session.created', 1) },
    ],
  },
  {
    name: 'clientForProvider',
    statement: clientForProvider as unknown as AnyCompiled,
    writes: false,
    args: [{ clientId: 'app' }, { clientId: 'public' }, { clientId: 'no-such-client' }, { clientId: '' }],
  },
  {
    name: 'payloadById',
    statement: payloadById as unknown as AnyCompiled,
    writes: false,
    args: [
      { model: 'ClientCredentials', id: 'cc-1' },
      { model: 'Grant', id: 'grant-1' },
      // another model's id: nothing
      { model: 'AccessToken', id: 'cc-1' },
      { model: 'Session', id: 'no-such-session' },
    ],
  },
  // a grant-bound artefact with its grant and account; acc-1 is no UUID, so no account joins
  {
    name: 'grantBoundById',
    statement: grantBoundById as unknown as AnyCompiled,
    writes: false,
    args: [
      { model: 'RefreshToken', value: 'rt-oidc' },
      { model: 'AccessToken', value: 'at-1' },
      // no grant of its own
      { model: 'AccessToken', value: 'at-extra' },
      // another model's id, and none
      { model: 'AccessToken', value: 'rt-oidc' },
      { model: 'RefreshToken', value: 'no-such-token' },
    ],
  },
  {
    name: 'grantBoundByUid',
    statement: grantBoundByUid as unknown as AnyCompiled,
    writes: false,
    args: [{ model: 'DeviceCode', value: 'uid-dc' }, { model: 'AccessToken', value: 'uid-dc' }, { model: 'DeviceCode', value: 'no-such-uid' }],
  },
  {
    name: 'grantBoundByUserCode',
    statement: grantBoundByUserCode as unknown as AnyCompiled,
    writes: false,
    args: [{ model: 'DeviceCode', value: 'CODE-1' }, { model: 'DeviceCode', value: 'CODE-2' }],
  },
  {
    name: 'upsertPayload',
    statement: upsertPayload as unknown as AnyCompiled,
    writes: true,
    args: [
      oidcRow('ClientCredentials', 'cc-new', { grant_id: null, account_id: null }),
      oidcRow('Session', 'sess-new', { grant_id: null, uid: 'uid-1', account_id: 'acc-1', expires_at: null }),
      // an id the model already has: the row is replaced
      oidcRow('ClientCredentials', 'cc-1', { grant_id: null }),
      oidcRow('AccessToken', 'at-1', { user_code: 'CODE-1' }),
    ],
  },
]

// ---- directStatement statements ---------------------------------------------------------------

type AnyDirect = { (db: Kysely<Database>, params: unknown[]): Promise<unknown[]>; text: string; pipelined: boolean }

export interface DirectCase {
  name: string
  statement: AnyDirect
  writes: boolean
  params: unknown[][]
}

const iso = (d: Date) => d.toISOString()
// auth-state-repo's findAuthState: token hash, canary, now, start of the velocity window, the two count bounds
const authState = (hash: string | null, canary: string | null, over: { now?: Date; live?: number; recent?: number } = {}) =>
  [hash, canary, iso(over.now ?? NOW), iso(at(-10 * 60_000)), over.live ?? 50, over.recent ?? 50]
// sessions-repo's rotateInOneStatement: hash, new hash, now, MAX_SESSION_LIFE, remember TTL, TTL, touch threshold
const rotation = (hash: string, over: { now?: Date; touchBefore?: Date | null } = {}) =>
  [hash, `next-${hash}`, iso(over.now ?? NOW), 30 * DAY, 30 * DAY, 7 * DAY, over.touchBefore === undefined ? null : over.touchBefore && iso(over.touchBefore)]

export const DIRECT_CASES: DirectCase[] = [
  {
    name: 'readAuthState',
    statement: readAuthState as unknown as AnyDirect,
    writes: false,
    params: [
      authState('rt-live', 'canary-1'),
      authState('rt-live', 'canary-1', { live: 1, recent: 1 }),
      authState('rt-remember', 'canary-2'),
      authState('rt-revoked', 'canary-3'),
      authState('rt-revoked-active', 'canary-2', { recent: 0 }),
      authState('rt-old', null),
      authState('rt-live-rotated', 'canary-1', { now: at(2 * DAY) }),
      authState('no-such-token', 'canary-1'),
      authState(null, 'no-such-canary'),
      authState(null, null),
    ],
  },
  {
    name: 'sendRotation',
    statement: sendRotation as unknown as AnyDirect,
    writes: true,
    params: [
      rotation('rt-live'),
      rotation('rt-live', { touchBefore: at(-60_000) }),
      rotation('rt-remember', { touchBefore: at(-3 * HOUR) }),
      // spent without a successor: the family revoked, past MAX_SESSION_LIFE, the token expired
      rotation('rt-revoked-active'),
      rotation('rt-old'),
      rotation('rt-expired'),
      // not active: nothing spent
      rotation('rt-revoked'),
      rotation('rt-live-rotated'),
      rotation('no-such-token'),
    ],
  },
  {
    name: 'introspectionRow',
    statement: introspectionRow as unknown as AnyDirect,
    writes: false,
    // the caller's client id, the token
    params: [
      ['app', 'at-1'],
      ['basic', 'cc-1'],
      ['basic', 'at-consumed'],
      ['app', 'at-bound'],
      ['pairwise', 'at-extra'],
      ['app', 'rt-oidc'],
      ['public', 'grant-1'],
      ['no-such-client', 'no-such-token'],
    ],
  },
  {
    name: 'clientRow',
    statement: clientRow as unknown as AnyDirect,
    writes: false,
    // the client id
    params: [['basic'], ['public'], ['pairwise'], ['no-such-client']],
  },
  {
    name: 'insertClientCredentials',
    statement: insertClientCredentials as unknown as AnyDirect,
    writes: true,
    // the token's id, its payload, its expiry
    params: [
      ['cc-fast-1', JSON.stringify({ iat: 1, exp: 2, jti: 'cc-fast-1', kind: 'ClientCredentials', clientId: 'basic', scope: 'orders:read' }), iso(at(600_000))],
      ['cc-fast-2', JSON.stringify({ iat: 1, exp: 2, jti: 'cc-fast-2', kind: 'ClientCredentials', clientId: 'basic' }), iso(at(60_000))],
    ],
  },
  {
    name: 'refreshRow',
    statement: refreshRow as unknown as AnyDirect,
    writes: false,
    // the client id, the refresh token: with its grant and account, another client's, a grant-less
    // or account-less token, an unknown token, an unknown client
    params: [['basic', 'rt-user'], ['app', 'rt-oidc'], ['app', 'rt-user'], ['basic', 'at-1'], ['basic', 'no-such-token'], ['no-such-client', 'rt-user']],
  },
  {
    name: 'insertRefreshedAccessToken',
    statement: insertRefreshedAccessToken as unknown as AnyDirect,
    writes: true,
    // the token's id, its payload, grant id, account id, expiry
    params: [
      ['at-fast-1', JSON.stringify({ iat: 1, exp: 2, jti: 'at-fast-1', kind: 'AccessToken', clientId: 'basic', gty: 'authorization_code refresh_token', grantId: 'grant-1', accountId: '00000000-0000-4000-8000-000000000001', scope: 'openid' }), 'grant-1', '00000000-0000-4000-8000-000000000001', iso(at(600_000))],
    ],
  },
]

/** The names `pattern` declares in iam/features and iam/fast (every file): what the tables above must cover. */
export function declaredIn(pattern: RegExp): string[] {
  const names: string[] = []
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir)) {
      const path = join(dir, entry)
      if (statSync(path).isDirectory()) walk(path)
      else if (path.endsWith('.ts')) for (const match of readFileSync(path, 'utf8').matchAll(pattern)) names.push(match[1]!)
    }
  }
  // the features' statements, and the fast paths' (iam/fast: introspection, the client credentials grant)
  for (const dir of ['../../iam/features', '../../iam/fast']) walk(fileURLToPath(new URL(dir, import.meta.url)))
  return names.sort()
}
