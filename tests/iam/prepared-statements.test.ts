/**
 * PostgreSQL runs repeated statements as named prepared statements (iam/fast/prepared.ts). A
 * migration by another instance (a rolling upgrade) can change a table under them: PostgreSQL
 * re-plans by itself unless the statement's result columns change, which it refuses with SQLSTATE
 * 0A000. The IAM must answer normally, never with that error.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { authedGet, loginUser, newDevice, PROXY_CONFIG, signupUser } from '../helpers/accounts'
import { startIam, type IamServer } from '../helpers/iam-server'
import { runOnPg } from '../helpers/test-database'
import { skippedWithout, titled } from '../helpers/skip-notes'

// skipped without DATABASE_URL: prepared statements are the PostgreSQL driver's (PGlite runs every statement unnamed)
describe.skipIf(skippedWithout('postgres'))(titled('prepared statements (PostgreSQL)', 'postgres'), () => {
  let iam: IamServer
  beforeAll(async () => {
    iam = await startIam({
      config: {
        ...PROXY_CONFIG,
        // one user signs in 25 times: neither the velocity rule nor the session cap may answer
        anomalies: { velocity: { count: 100 } },
        jwt: { refresh_tokens: { maxAllowedSessionsPerUser: 100 } },
        rate_limiters: { login: { points: 100, duration: 60, blockDuration: 60 } },
      },
    })
  }, 240_000)
  afterAll(() => iam?.stop())

  it('a column added under a prepared statement whose result it changes is re-planned, not a 500', async () => {
    const device = await newDevice(iam, { ip: '198.51.100.90' })
    const user = await signupUser(iam, { client: device })
    // the login's account read selects every column of users: prepared on the connections it used
    for (let i = 0; i < 12; i++) await loginUser(iam, user.email, user.password, device)
    await runOnPg(iam.share.databaseUrl, 'alter table users add column prepared_probe text')
    for (let i = 0; i < 12; i++) {
      const s = await loginUser(iam, user.email, user.password, device)
      expect((await authedGet(iam, s)).status).toBe(200)
    }
  })
})
