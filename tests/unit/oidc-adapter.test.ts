/**
 * The OpenID Provider's storage on the embedded database (iam/features/oidc/adapter.ts): what the
 * provider relies on for single use, expiry and revocation, checked on a real migrated PGlite.
 */
import type { Kysely } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Database } from '../../iam/db/schema'
import { createAdapterFactory, sweepExpired } from '../../iam/features/oidc/adapter'
import { configSchema } from '../../iam/lib/config-schema'
import { createMigratedDatabase } from '../helpers/test-database'

let db: Kysely<Database>
let clock = Date.parse('2026-11-27T10:00:00Z')
let adapter: ReturnType<typeof createAdapterFactory>

beforeAll(async () => {
  const config = configSchema.parse({ database: { url: 'memory://' }, secrets: { totpKeys: [{ id: 'k1', key: 'A'.repeat(43) }] } })
  db = await createMigratedDatabase(config)
  adapter = createAdapterFactory({ db, config, now: () => clock })
  // a fresh embedded database and its migrations: beyond the 10 s default on a loaded machine
}, 60_000)
afterAll(() => db?.destroy())

type Payload = Record<string, unknown>
const model = (name: string) => adapter(name) as unknown as {
  upsert(id: string, payload: Payload, expiresIn?: number): Promise<void>
  find(id: string): Promise<Payload | undefined>
  findByUid(uid: string): Promise<Payload | undefined>
  findByUserCode(code: string): Promise<Payload | undefined>
  consume(id: string): Promise<void>
  revokeByGrantId(grantId: string): Promise<void>
}

describe('oidc-provider adapter on PGlite', () => {
  it('finds what it stored, by id, uid and user code, until it expires', async () => {
    await model('Session').upsert('s1', { uid: 'u1', accountId: 'acc' }, 60)
    await model('DeviceCode').upsert('d1', { userCode: 'ABCD-EFGH', grantId: 'g0' }, 60)
    expect(await model('Session').find('s1')).toMatchObject({ uid: 'u1' })
    expect(await model('Session').findByUid('u1')).toMatchObject({ accountId: 'acc' })
    expect(await model('DeviceCode').findByUserCode('ABCD-EFGH')).toMatchObject({ grantId: 'g0' })
    clock += 61_000
    expect(await model('Session').find('s1')).toBeUndefined()
  })

  it('lets exactly one of two concurrent redemptions of a code through and revokes the grant for the other', async () => {
    await model('AuthorizationCode').upsert('c1', { grantId: 'g1', accountId: 'acc' }, 60)
    await model('AccessToken').upsert('t1', { grantId: 'g1', accountId: 'acc' }, 600)
    const results = await Promise.allSettled([model('AuthorizationCode').consume('c1'), model('AuthorizationCode').consume('c1')])
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1)
    const refused = results.find((r) => r.status === 'rejected') as PromiseRejectedResult
    expect(refused.reason).toMatchObject({ error: 'invalid_grant' })
    expect(await model('AccessToken').find('t1')).toBeUndefined()
    expect(await model('AuthorizationCode').find('c1')).toBeUndefined()
  })

  it('marks a consumed artefact with the time it was consumed', async () => {
    await model('RefreshToken').upsert('r1', { grantId: 'g2' }, 600)
    await model('RefreshToken').consume('r1')
    expect((await model('RefreshToken').find('r1'))?.consumed).toBe(Math.floor(clock / 1000))
  })

  it('revokes by grant only the artefacts of that model and grant', async () => {
    await model('AccessToken').upsert('t2', { grantId: 'g3' }, 600)
    await model('RefreshToken').upsert('r2', { grantId: 'g3' }, 600)
    await model('AccessToken').upsert('t3', { grantId: 'g4' }, 600)
    await model('AccessToken').revokeByGrantId('g3')
    expect(await model('AccessToken').find('t2')).toBeUndefined()
    expect(await model('RefreshToken').find('r2')).toBeDefined()
    expect(await model('AccessToken').find('t3')).toBeDefined()
  })

  it('sweeps rows an hour past their expiry and keeps the rest', async () => {
    await model('Interaction').upsert('i-old', {}, 1)
    await model('Interaction').upsert('i-new', {}, 3600)
    clock += 2 * 3600_000 - 1000
    await sweepExpired(db, clock)
    const ids = (await db.selectFrom('oidc_payloads').select('id').where('model', '=', 'Interaction').execute()).map((r) => r.id)
    expect(ids).toContain('i-new')
    expect(ids).not.toContain('i-old')
  })
})
