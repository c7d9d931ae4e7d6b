/**
 * The deprovisioning promise at the database (iam/features/enterprise/scim-deprovision.ts, on
 * PGlite with every migration): deactivating a person in one organization blocks that membership
 * and ends the sessions acting for that organization, and touches nothing else: the person's other
 * sessions, their other organization's membership, their API-token-free account, another person.
 */
import { sql, type Kysely } from 'kysely'
import { Migrator } from 'kysely/migration'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Database } from '../../iam/db/schema'
import { migrations } from '../../iam/db/migrations/index'
import { deprovisionMembership, isDeprovisionedIn, reactivateMembership, SCIM_DEPROVISIONED_REASON } from '../../iam/features/enterprise/scim-deprovision'
import { readActor } from '../../iam/features/organizations/actor'
import { openTestDatabase, type TestDatabase } from '../helpers/test-database'

let t: TestDatabase
let db: Kysely<Database>
const ids = { person: 0, colleague: 0, orgA: 0, orgB: 0, orgAPublic: '', orgBPublic: '' }

beforeAll(async () => {
  t = await openTestDatabase('pglite')
  db = t.db
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations }, migrationTableName: 'iam_migrations', migrationLockTableName: 'iam_migrations_lock' })
  expect((await migrator.migrateToLatest()).error).toBeUndefined()
  const user = (email: string) => db.insertInto('users').values({ email, name: email, password_hash: null, roles: JSON.stringify(['user']), created_at: new Date(), updated_at: new Date() }).returning('id').executeTakeFirstOrThrow()
  ids.person = (await user('person@example.com')).id
  ids.colleague = (await user('colleague@example.com')).id
  const org = (slug: string) => db.insertInto('organizations').values({ slug, name: slug }).returning(['id', sql<string>`public_id::text`.as('publicId')]).executeTakeFirstOrThrow()
  const a = await org('org-a')
  const b = await org('org-b')
  Object.assign(ids, { orgA: a.id, orgB: b.id, orgAPublic: a.publicId, orgBPublic: b.publicId })
  for (const [orgId, userId] of [[a.id, ids.person], [b.id, ids.person], [a.id, ids.colleague]] as const) {
    await db.insertInto('memberships').values({ org_id: orgId, user_id: userId, role: 'member' }).execute()
  }
  const { id: visitor } = await db.insertInto('visitors').values({ canary_id: 'c', visitor_id: 'v', first_seen: new Date(), last_seen: new Date() }).returning('id').executeTakeFirstOrThrow()
  const session = async (id: string, userId: number, activeOrgId: number | null) => {
    await db.insertInto('session_families').values({ id, user_id: userId, visitor_id: visitor, active_org_id: activeOrgId, created_at: new Date(), last_seen: new Date() }).execute()
    await db.insertInto('refresh_tokens').values({ family_id: id, token_hash: `hash-${id}`, created_at: new Date(), expires_at: new Date(Date.now() + 3_600_000) }).execute()
  }
  await session('person-in-a', ids.person, a.id)
  await session('person-in-b', ids.person, b.id)
  await session('person-no-org', ids.person, null)
  await session('colleague-in-a', ids.colleague, a.id)
}, 60_000)
afterAll(async () => {
  await t?.close()
})

const revoked = async () =>
  (await db.selectFrom('session_families').select(['id', 'revoked_reason']).where('revoked_at', 'is not', null).orderBy('id').execute()).map((r) => `${r.id}:${r.revoked_reason}`)
const activeTokens = async () => (await db.selectFrom('refresh_tokens').select('family_id').where('status', '=', 'active').orderBy('family_id').execute()).map((r) => r.family_id)

describe('deprovisioning a membership', () => {
  it('blocks the person in that organization and ends only the sessions acting for it', async () => {
    const done = await db.transaction().execute((trx) => deprovisionMembership(trx, ids.orgA, ids.person, new Date()))
    expect(done).toBe(true)
    expect(await isDeprovisionedIn(db, ids.orgA, ids.person)).toBe(true)
    expect(await revoked()).toEqual([`person-in-a:${SCIM_DEPROVISIONED_REASON}`])
    expect(await activeTokens()).toEqual(['colleague-in-a', 'person-in-b', 'person-no-org'])
    // the organization reads as none for the person, and as before for everyone else
    expect(await readActor(db, ids.orgAPublic, ids.person)).toBeNull()
    expect(await readActor(db, ids.orgBPublic, ids.person)).not.toBeNull()
    expect(await readActor(db, ids.orgAPublic, ids.colleague)).not.toBeNull()
    expect(await isDeprovisionedIn(db, ids.orgB, ids.person)).toBe(false)
    expect(await isDeprovisionedIn(db, ids.orgA, ids.colleague)).toBe(false)
  })

  it('is idempotent, and reactivation lifts the block without bringing ended sessions back', async () => {
    expect(await db.transaction().execute((trx) => deprovisionMembership(trx, ids.orgA, ids.person, new Date()))).toBe(false)
    expect(await db.transaction().execute((trx) => reactivateMembership(trx, ids.orgA, ids.person))).toBe(true)
    expect(await db.transaction().execute((trx) => reactivateMembership(trx, ids.orgA, ids.person))).toBe(false)
    expect(await isDeprovisionedIn(db, ids.orgA, ids.person)).toBe(false)
    expect(await readActor(db, ids.orgAPublic, ids.person)).not.toBeNull()
    expect(await revoked()).toEqual([`person-in-a:${SCIM_DEPROVISIONED_REASON}`])
  })

  it('answers false for a person who is no member at all', async () => {
    expect(await isDeprovisionedIn(db, ids.orgB, ids.colleague)).toBe(false)
  })
})
