// The schema's constraints are the last line of the invariants later features rely on (one account
// per address, one live refresh token per family, unique token hashes ...): checked on PGlite and,
// with DATABASE_URL, on a throwaway PostgreSQL database.
import { randomBytes } from 'node:crypto'
import { sql, type Kysely } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { migrateToLatest } from '../../iam/db/database'
import type { Database } from '../../iam/db/schema'
import { migrations } from '../../iam/db/migrations/index'
import { INTROSPECTION_SQL } from '../../iam/fast/introspection'
import { AUTH_STATE_SQL } from '../../iam/features/sessions/auth-state-repo'
import { DATABASE_URL, openTestDatabase, type TestDatabase } from '../helpers/test-database'
import { titled } from '../helpers/skip-notes'

const kinds = [
  { kind: 'pglite' as const, skip: false, label: 'pglite' },
  // PostgreSQL only when DATABASE_URL names a server (the PostgreSQL + Redis run of the suite sets it).
  { kind: 'postgres' as const, skip: !DATABASE_URL, label: titled('postgres', 'postgres') },
]

const uid = () => randomBytes(6).toString('hex')

/** The SQLSTATE of a failed statement: 23505 unique, 23514 check, 23503 foreign key. */
async function sqlState(work: Promise<unknown>): Promise<string> {
  try {
    await work
  } catch (error) {
    return String((error as { code?: unknown }).code)
  }
  throw new Error('the statement succeeded but was expected to violate a constraint')
}

describe.each(kinds)('schema on $label', ({ kind, skip: noPostgresServer }) => {
  let t: TestDatabase
  let db: Kysely<Database>

  beforeAll(async () => {
    if (noPostgresServer) return
    t = await openTestDatabase(kind)
    db = t.db
    const result = await migrateToLatest(db)
    expect(result.results?.map((r) => [r.migrationName, r.status])).toEqual(Object.keys(migrations).map((name) => [name, 'Success']))
  }, 60_000)
  afterAll(async () => {
    await t?.close()
  })

  const newUser = async (email = `${uid()}@example.com`) =>
    (await db.insertInto('users').values({ email, name: 'n', roles: ['user'] }).returning('id').executeTakeFirstOrThrow()).id
  const newVisitor = async () =>
    (await db.insertInto('visitors').values({ canary_id: uid(), visitor_id: uid() }).returning('id').executeTakeFirstOrThrow()).id
  const newFamily = async (userId: number) => {
    const id = uid()
    await db.insertInto('session_families').values({ id, user_id: userId, visitor_id: await newVisitor() }).execute()
    return id
  }
  const refreshRow = (familyId: string, status: 'active' | 'rotated' | 'revoked' = 'active') => ({
    family_id: familyId,
    token_hash: uid(),
    status,
    expires_at: new Date(Date.now() + 60_000),
  })
  const apiToken = (userId: number, over: Record<string, unknown> = {}) => ({
    user_id: userId,
    name: 't',
    hashed_token: uid(),
    public_identifier: uid(),
    privilege_type: 'full' as const,
    ...over,
  })

  // `skip`: the PostgreSQL kind's cases are skipped without DATABASE_URL (see `kinds` above)
  it.skipIf(noPostgresServer)('re-running the migrations is a no-op', async () => {
    const again = await migrateToLatest(db)
    expect(again.results).toEqual([])
  })

  // skipped only when this kind's server is absent: the PostgreSQL kind runs with DATABASE_URL (CI's PostgreSQL + Redis run)
  it.skipIf(noPostgresServer)('refuses a second account whose email differs only in case', async () => {
    await newUser('Ann.Case@Example.com')
    expect(await sqlState(newUser('ann.case@example.COM'))).toBe('23505')
  })

  // skipped only when this kind's server is absent: the PostgreSQL kind runs with DATABASE_URL (CI's PostgreSQL + Redis run)
  it.skipIf(noPostgresServer)('names one account by an external id, any number without one, and holds its length to 1 to 255 characters (migration 0013)', async () => {
    const withExternalId = (externalId: string | null) =>
      db.insertInto('users').values({ email: `${uid()}@example.com`, name: 'n', roles: ['user'], external_id: externalId }).returning('id').executeTakeFirstOrThrow()
    const id = `src-${uid()}`
    await withExternalId(id)
    expect(await sqlState(withExternalId(id))).toBe('23505')
    // compared exactly: another case is another id
    await withExternalId(id.toUpperCase())
    await withExternalId(null)
    await withExternalId(null)
    await withExternalId('é'.repeat(255))
    expect(await sqlState(withExternalId(''))).toBe('23514')
    expect(await sqlState(withExternalId('x'.repeat(256)))).toBe('23514')
  })

  // skipped only when this kind's server is absent: the PostgreSQL kind runs with DATABASE_URL (CI's PostgreSQL + Redis run)
  it.skipIf(noPostgresServer)('keeps at most one active refresh token per family, however many writers race', async () => {
    const familyId = await newFamily(await newUser())
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, () => db.insertInto('refresh_tokens').values(refreshRow(familyId)).execute()),
    )
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1)
    // used and revoked rows are history: any number of them
    await db.insertInto('refresh_tokens').values([refreshRow(familyId, 'rotated'), refreshRow(familyId, 'rotated'), refreshRow(familyId, 'revoked')]).execute()
    expect(await sqlState(db.insertInto('refresh_tokens').values(refreshRow(familyId)).execute())).toBe('23505')
    expect(await sqlState(db.insertInto('refresh_tokens').values({ ...refreshRow(familyId), status: 'bogus' as never }).execute())).toBe('23514')
  })

  // skipped only when this kind's server is absent: the PostgreSQL kind runs with DATABASE_URL (CI's PostgreSQL + Redis run)
  it.skipIf(noPostgresServer)('refuses a duplicate refresh token hash', async () => {
    const familyId = await newFamily(await newUser())
    const row = refreshRow(familyId, 'rotated')
    await db.insertInto('refresh_tokens').values(row).execute()
    expect(await sqlState(db.insertInto('refresh_tokens').values(row).execute())).toBe('23505')
  })

  // skipped only when this kind's server is absent: the PostgreSQL kind runs with DATABASE_URL (CI's PostgreSQL + Redis run)
  it.skipIf(noPostgresServer)('keeps API token hashes and public identifiers unique', async () => {
    const userId = await newUser()
    const first = apiToken(userId)
    await db.insertInto('api_tokens').values(first).execute()
    expect(await sqlState(db.insertInto('api_tokens').values(apiToken(userId, { hashed_token: first.hashed_token })).execute())).toBe('23505')
    expect(
      await sqlState(db.insertInto('api_tokens').values(apiToken(userId, { public_identifier: first.public_identifier })).execute()),
    ).toBe('23505')
  })

  // skipped only when this kind's server is absent: the PostgreSQL kind runs with DATABASE_URL (CI's PostgreSQL + Redis run)
  it.skipIf(noPostgresServer)('accepts only the five privileges (demo, restricted, protected, full, custom) and valid in (0, 1)', async () => {
    const userId = await newUser()
    for (const privilege_type of ['demo', 'restricted', 'protected', 'full', 'custom'] as const) {
      await db.insertInto('api_tokens').values(apiToken(userId, { privilege_type })).execute()
    }
    expect(await sqlState(db.insertInto('api_tokens').values(apiToken(userId, { privilege_type: 'admin' })).execute())).toBe('23514')
    expect(await sqlState(db.insertInto('api_tokens').values(apiToken(userId, { valid: 2 })).execute())).toBe('23514')
    const row = await db.insertInto('api_tokens').values(apiToken(userId)).returning(['valid', 'usage_count', 'prefix']).executeTakeFirstOrThrow()
    expect(row).toEqual({ valid: 1, usage_count: 0, prefix: 'api' })
  })

  // skipped only when this kind's server is absent: the PostgreSQL kind runs with DATABASE_URL (CI's PostgreSQL + Redis run)
  it.skipIf(noPostgresServer)('links one provider account to one identity', async () => {
    const userId = await newUser()
    const identity = { user_id: userId, provider: 'demo', provider_user_id: uid(), email: 'x@example.com' }
    await db.insertInto('oauth_identities').values(identity).execute()
    const other = await newUser()
    expect(await sqlState(db.insertInto('oauth_identities').values({ ...identity, user_id: other }).execute())).toBe('23505')
    await db.insertInto('oauth_identities').values({ ...identity, provider: 'other' }).execute()
  })

  // skipped only when this kind's server is absent: the PostgreSQL kind runs with DATABASE_URL (CI's PostgreSQL + Redis run)
  it.skipIf(noPostgresServer)('deletes a user with everything that belongs to them, and keeps their security events with the user id (migration 0011; the purge clears the rest)', async () => {
    const userId = await newUser()
    const familyId = await newFamily(userId)
    await db.insertInto('refresh_tokens').values(refreshRow(familyId)).execute()
    await db.insertInto('api_tokens').values(apiToken(userId)).execute()
    await db.insertInto('oauth_identities').values({ user_id: userId, provider: 'p', provider_user_id: uid(), email: 'e@example.com' }).execute()
    const jti = uid()
    await db
      .insertInto('magic_links')
      .values({ jti, purpose: 'MFA', subject: 's', user_id: userId, family_id: familyId, visitor: 'v', random_hash: 'h', expires_at: new Date() })
      .execute()
    await db.insertInto('mfa_codes').values({ link_jti: jti, user_id: userId, family_id: familyId, code_hmac: 'c', expires_at: new Date() }).execute()
    const event = await db.insertInto('security_events').values({ type: 'login', user_id: userId }).returning('id').executeTakeFirstOrThrow()

    await db.deleteFrom('users').where('id', '=', userId).execute()
    const count = async (table: 'session_families' | 'api_tokens' | 'oauth_identities' | 'magic_links' | 'mfa_codes') =>
      (await db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).where('user_id', '=', userId).executeTakeFirstOrThrow()).n
    for (const table of ['session_families', 'api_tokens', 'oauth_identities', 'magic_links', 'mfa_codes'] as const) {
      expect(await count(table), table).toBe(0)
    }
    const tokens = await db.selectFrom('refresh_tokens').select('id').where('family_id', '=', familyId).execute()
    expect(tokens).toEqual([])
    const kept = await db.selectFrom('security_events').select('user_id').where('id', '=', event.id).executeTakeFirstOrThrow()
    expect(kept.user_id).toBe(userId)
  })

  // skipped only when this kind's server is absent: the PostgreSQL kind runs with DATABASE_URL (CI's PostgreSQL + Redis run)
  it.skipIf(noPostgresServer)('keeps read-modify-write transactions with row locks exact under 50 concurrent writers', async () => {
    const userId = await newUser()
    const { id } = await db.insertInto('api_tokens').values(apiToken(userId)).returning('id').executeTakeFirstOrThrow()
    await Promise.all(
      Array.from({ length: 50 }, () =>
        db.transaction().execute(async (trx) => {
          const row = await trx.selectFrom('api_tokens').select('usage_count').where('id', '=', id).forUpdate().executeTakeFirstOrThrow()
          await trx.updateTable('api_tokens').set({ usage_count: row.usage_count + 1 }).where('id', '=', id).execute()
        }),
      ),
    )
    const row = await db.selectFrom('api_tokens').select('usage_count').where('id', '=', id).executeTakeFirstOrThrow()
    expect(row.usage_count).toBe(50)
  })

  // skipped only when this kind's server is absent: the PostgreSQL kind runs with DATABASE_URL (CI's PostgreSQL + Redis run)
  it.skipIf(noPostgresServer)('refuses rows pointing at a missing user', async () => {
    expect(await sqlState(db.insertInto('api_tokens').values(apiToken(2_000_000_000)).execute())).toBe('23503')
  })

  // skipped only when this kind's server is absent: the PostgreSQL kind runs with DATABASE_URL (CI's PostgreSQL + Redis run)
  it.skipIf(noPostgresServer)('writes JS arrays into jsonb columns as JSON on insert and update, and counts as numbers', async () => {
    const userId = await newUser()
    const row = await db
      .insertInto('api_tokens')
      .values(apiToken(userId, { restricted_to_ip_address: ['203.0.113.5', '198.51.100.1'] }))
      .returning(['id', 'restricted_to_ip_address'])
      .executeTakeFirstOrThrow()
    expect(row.restricted_to_ip_address).toEqual(['203.0.113.5', '198.51.100.1'])
    await db.updateTable('api_tokens').set({ restricted_to_ip_address: ['192.0.2.9'] }).where('id', '=', row.id).execute()
    await db.updateTable('users').set({ roles: ['user', 'admin'] }).where('id', '=', userId).execute()
    const user = await db.selectFrom('users').select('roles').where('id', '=', userId).executeTakeFirstOrThrow()
    expect(user.roles).toEqual(['user', 'admin'])
    const updated = await db.selectFrom('api_tokens').select('restricted_to_ip_address').where('id', '=', row.id).executeTakeFirstOrThrow()
    expect(updated.restricted_to_ip_address).toEqual(['192.0.2.9'])
    // arrays outside column writes stay SQL arrays
    const any = await sql<{ n: number }>`select count(*) as n from users where id = any(${[userId, -1]})`.execute(db)
    expect(any.rows[0].n).toBe(1)
  })

  // skipped only when this kind's server is absent: the PostgreSQL kind runs with DATABASE_URL (CI's PostgreSQL + Redis run)
  it.skipIf(noPostgresServer)('reaches all of one user\'s sessions, revoked ones included, through an index: the session counts of every signed-in request never scan the table', async () => {
    const plan = await db.transaction().execute(async (trx) => {
      // the tables here are tiny, where a scan is cheapest: forbid it to see whether an index path exists
      await sql`set local enable_seqscan = off`.execute(trx)
      const { rows } = await sql<Record<string, string>>`explain select count(*) from session_families s where s.user_id = ${1}`.execute(trx)
      return rows.map((row) => Object.values(row).join(' ')).join('\n')
    })
    expect(plan).not.toMatch(/Seq Scan on session_families/)
    expect(plan).toMatch(/session_families_user_idx/)
  })

  // skipped only when this kind's server is absent: the PostgreSQL kind runs with DATABASE_URL (CI's PostgreSQL + Redis run)
  it.skipIf(noPostgresServer)('keeps full authentication\'s statement on indexes when one user holds most sessions: its generic plan never scans session_families', async () => {
    // the skew of the bench's growth row: one account with 2,000 families (a busy service account, or
    // the bench's user), statistics that know it, and the plan a named statement settles on
    const busy = await newUser()
    const visitor = await newVisitor()
    await sql`insert into session_families (id, user_id, visitor_id, refresh_expires_at) select 'skew-' || g, ${busy}, ${visitor}, now() + interval '1 day' from generate_series(1, 2000) g`.execute(db)
    await sql`insert into refresh_tokens (family_id, token_hash, status, expires_at) select id, 'skew-token-' || id, 'active', now() + interval '1 day' from session_families where user_id = ${busy}`.execute(db)
    await newFamily(await newUser())
    await sql`analyze session_families`.execute(db)
    await sql`analyze refresh_tokens`.execute(db)
    const plan = await db.transaction().execute(async (trx) => {
      await sql`set local plan_cache_mode = force_generic_plan`.execute(trx)
      await sql.raw(`prepare auth_state_skew (text, text, timestamptz, timestamptz, int, int) as ${AUTH_STATE_SQL}`).execute(trx)
      const { rows } = await sql<Record<string, string>>`explain execute auth_state_skew ('h', 'c', now(), now() - interval '1 hour', 5, 11)`.execute(trx)
      await sql`deallocate auth_state_skew`.execute(trx)
      return rows.map((row) => Object.values(row).join(' ')).join('\n')
    })
    expect(plan).toMatch(/session_families_user_idx/)
    expect(plan).not.toMatch(/Seq Scan on session_families/)
  })

  // skipped only when this kind's server is absent: the PostgreSQL kind runs with DATABASE_URL (CI's PostgreSQL + Redis run)
  it.skipIf(noPostgresServer)('finds an introspected token\'s grant by its id in the generic plan, whether the table held grants when it was made or not', async () => {
    // the generic plan a named statement settles on, made from the statistics of that moment: a
    // plain join made while no grant existed probed the primary key by model alone and filtered
    // every grant by id (harmless then, a scan of every grant once they are many)
    const planOf = async () =>
      db.transaction().execute(async (trx) => {
        await sql`set local plan_cache_mode = force_generic_plan`.execute(trx)
        await sql.raw(`prepare introspection_plan (text, text) as ${INTROSPECTION_SQL}`).execute(trx)
        const { rows } = await sql<Record<string, string>>`explain execute introspection_plan ('client', 'token')`.execute(trx)
        await sql`deallocate introspection_plan`.execute(trx)
        return rows.map((row) => Object.values(row).join(' ')).join('\n')
      })
    // the scan of g itself looks for the one id (an index condition, or a filter of a scan of an
    // empty table), rather than the join filtering every grant the scan returns
    const byId = /on oidc_payloads g[^\n]*\n\s+(Index Cond|Filter): [^\n]*id = t\.grant_id/
    const checked = async () => {
      const plan = await planOf()
      expect(plan).toMatch(byId)
      expect(plan).not.toMatch(/Join Filter: [^\n]*grant_id/)
    }
    await sql`insert into oidc_payloads (model, id, payload, grant_id) select 'ClientCredentials', 'plan-cc-' || g, '{}'::jsonb, null from generate_series(1, 500) g`.execute(db)
    await sql`analyze oidc_payloads`.execute(db)
    await checked()
    await sql`insert into oidc_payloads (model, id, payload, grant_id) select 'Grant', 'plan-grant-' || g, '{}'::jsonb, null from generate_series(1, 2000) g`.execute(db)
    await sql`insert into oidc_payloads (model, id, payload, grant_id) select 'AccessToken', 'plan-at-' || g, '{}'::jsonb, 'plan-grant-' || g from generate_series(1, 2000) g`.execute(db)
    await sql`analyze oidc_payloads`.execute(db)
    await checked()
  })
})
