/**
 * The hosts an administrator blocks (iam/features/oidc/blocked-hosts.ts) on a real migrated
 * PGlite: a block written by another instance (a row this process did not write) holds here once
 * this instance's read is BLOCKED_HOSTS_TTL_MS old; a block taken here holds here at once; and the
 * provider's checks (client-metadata-documents.ts) take both lists.
 */
import type { Kysely } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Database } from '../../iam/db/schema'
import { BLOCKED_HOSTS_TTL_MS, blockedHostPatterns, blockHost, forgetBlockedHosts, isHostBlocked, unblockHost } from '../../iam/features/oidc/blocked-hosts'
import { clientIdMetadataDocumentFeature } from '../../iam/features/oidc/client-metadata-documents'
import { configSchema } from '../../iam/lib/config-schema'
import { createMigratedDatabase } from '../helpers/test-database'

const config = configSchema.parse({ database: { url: 'memory://' }, oidc: { clientIdMetadataDocuments: { blockedHosts: ['config.example'] } } })
let db: Kysely<Database>
let adminId: number
const start = Date.parse('2026-11-30T10:00:00Z')

beforeAll(async () => {
  db = await createMigratedDatabase(config)
  const admin = await db.insertInto('users').values({ email: 'admin@example.com', name: 'Admin' }).returning('id').executeTakeFirstOrThrow()
  adminId = admin.id
  // a fresh embedded database and its migrations: beyond the 10 s default on a loaded machine
}, 60_000)
afterAll(() => db?.destroy())

const actor = { visitorRowId: null, ipAddress: '127.0.0.1', fingerprint: null }

describe('hosts blocked from the console', () => {
  it('holds a block another instance wrote once this instance read is older than the cache time', async () => {
    forgetBlockedHosts()
    expect(await blockedHostPatterns(db, start)).toEqual([])
    await db.insertInto('oidc_blocked_hosts').values({ host: 'elsewhere.example', blocked_by: null }).execute()
    expect(await blockedHostPatterns(db, start + BLOCKED_HOSTS_TTL_MS - 1)).toEqual([])
    expect(await blockedHostPatterns(db, start + BLOCKED_HOSTS_TTL_MS)).toEqual(['elsewhere.example'])
    await db.deleteFrom('oidc_blocked_hosts').execute()
    forgetBlockedHosts()
  })

  it('holds a block taken here at once, revokes only the grants of that host, and lifts it on unblock', async () => {
    expect(await blockedHostPatterns(db, start)).toEqual([])
    const grant = (id: string, clientId: string) => ({ model: 'Grant', id, payload: JSON.stringify({ clientId, accountId: 'a' }), grant_id: id, account_id: 'a' })
    await db.insertInto('oidc_payloads').values([grant('g1', 'https://agent.example/c.json'), grant('g2', 'https://other.example/c.json'), grant('g3', 'https://a.agent.example/c.json')]).execute()
    const ctx = { db, config, now: () => start }

    expect(await blockHost(ctx, { userId: adminId, actor, host: 'agent.example' })).toEqual({ host: 'agent.example', revokedGrants: 1 })
    expect(await blockedHostPatterns(db, start)).toEqual(['agent.example'])
    const left = await db.selectFrom('oidc_payloads').select('id').orderBy('id').execute()
    expect(left.map((r) => r.id)).toEqual(['g2', 'g3'])
    const event = await db.selectFrom('security_events').select(['type', 'user_id', 'details']).where('user_id', '=', adminId).executeTakeFirstOrThrow()
    expect(event).toMatchObject({ type: 'oidc_client_host_blocked', details: { host: 'agent.example', revokedGrants: 1 } })

    const feature = clientIdMetadataDocumentFeature(config.oidc.clientIdMetadataDocuments, () => blockedHostPatterns(db, start))
    expect(await feature.allowClient(undefined, { clientId: 'https://agent.example/c.json' })).toBe(false)
    expect(await feature.allowClient(undefined, { clientId: 'https://config.example/c.json' })).toBe(false)
    expect(await feature.allowClient(undefined, { clientId: 'https://other.example/c.json' })).toBe(true)
    expect(await feature.allowFetch(undefined, 'https://agent.example/c.json')).toBe(false)

    expect(await unblockHost(ctx, { userId: adminId, actor, host: 'agent.example' })).toEqual({ ok: true, host: 'agent.example' })
    expect(await feature.allowClient(undefined, { clientId: 'https://agent.example/c.json' })).toBe(true)
    expect(await unblockHost(ctx, { userId: adminId, actor, host: 'agent.example' })).toEqual({ ok: false, code: 'client_host_not_blocked' })
    expect(await unblockHost(ctx, { userId: adminId, actor, host: 'config.example' })).toEqual({ ok: false, code: 'client_host_blocked_in_config' })
  })

  it('matches a wildcard below its domain only, by the host name without the port', () => {
    expect(isHostBlocked('https://a.agent.example:8443/c.json', ['*.agent.example'])).toBe(true)
    expect(isHostBlocked('https://agent.example/c.json', ['*.agent.example'])).toBe(false)
    expect(isHostBlocked('registered-client-id', ['*'])).toBe(false)
  })
})
