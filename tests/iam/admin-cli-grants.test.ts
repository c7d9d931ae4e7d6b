/**
 * The admin CLI ends an account's OpenID Provider grants with its sessions, as the server does:
 * the CLI builds its own IamContext (iam/cli/context.ts), and the provider's listener must be
 * registered on it too (iam/session-hooks.ts), or `sessions:revoke --all` would leave every app
 * the account signed in to holding live tokens. The data set is seeded and read directly (the
 * provider's rows need a signed-in browser and a relying party otherwise; the server path has its
 * end-to-end test in tests/gateway/oidc-grants.test.ts); the change goes through the CLI itself.
 */
import { randomBytes } from 'node:crypto'
import { afterAll, describe, expect, it } from 'vitest'
import { migrateToLatest } from '../../iam/db/database'
import { hashRefreshToken, newRefreshToken } from '../../iam/features/sessions/refresh-token'
import { insertSessionAtOnce } from '../../iam/features/sessions/sessions-repo'
import { fileURLToPath } from 'node:url'
import { connectDatabase, migratedPgliteDir } from '../helpers/test-database'
import { cliJson, deployment, type Cleanups } from './admin-cli-run'

const cleanups: Cleanups = []
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup()
})

const HOUR_MS = 3_600_000
// opening PGlite on disk and three CLI-sized processes on a loaded box
const TIMEOUT_MS = 180_000

describe('npm run iam -- sessions:revoke --all and the OpenID Provider', () => {
  it('ends the provider grants and tokens of that account, and of no other account', async () => {
    const dep = await deployment(cleanups, {})
    const email = 'cli-grants@example.com'
    // a copy of the run's migrated data directory, when there is one: no initdb here
    if (dep.share.databaseUrl.startsWith('file://')) migratedPgliteDir(fileURLToPath(dep.share.databaseUrl))
    // PGlite is single-process: the test holds the data set only while the CLI does not run
    let db = await connectDatabase(dep.share.databaseUrl)
    await migrateToLatest(db)
    const users = await db.insertInto('users')
      .values([{ email, name: 'Ada', roles: ['user'] }, { email: 'cli-bystander@example.com', name: 'Bob', roles: ['user'] }])
      .returning(['id', 'public_id']).execute()
    const [target, bystander] = [users[0]!, users[1]!]
    const { id: visitorRowId } = await db.insertInto('visitors').values({ canary_id: 'c-cli-grants', visitor_id: 'v-cli-grants' }).returning('id').executeTakeFirstOrThrow()
    const now = new Date()
    const familyId = randomBytes(8).toString('hex')
    const expiresAt = new Date(now.getTime() + HOUR_MS)
    await insertSessionAtOnce(db,
      { id: familyId, userId: target.id, visitorRowId, remember: false, ipAddress: '203.0.113.7', fingerprint: null, now, refreshExpiresAt: expiresAt },
      { familyId, hash: hashRefreshToken(newRefreshToken()), expiresAt, now })
    const grant = (id: string, accountId: string) => ({
      model: 'RefreshToken', id, payload: JSON.stringify({ kind: 'RefreshToken', jti: id, accountId, grantId: `grant-${id}` }),
      grant_id: `grant-${id}`, user_code: null, uid: null, account_id: accountId, expires_at: expiresAt, consumed_at: null,
    })
    await db.insertInto('oidc_payloads').values([grant('rt-target', String(target.public_id)), grant('rt-bystander', String(bystander.public_id))]).execute()
    await db.destroy()

    const result = await cliJson(['sessions:revoke', email, '--all'], dep.env)
    expect(result.revoked).toBe(1)

    db = await connectDatabase(dep.share.databaseUrl)
    try {
      const left = await db.selectFrom('oidc_payloads').select('id').where('id', 'in', ['rt-target', 'rt-bystander']).execute()
      expect(left.map((r) => r.id)).toEqual(['rt-bystander'])
    } finally {
      await db.destroy()
    }
  }, TIMEOUT_MS)
})
