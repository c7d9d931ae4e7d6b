/**
 * Read replicas (iam/db/replicas.ts): which failures take a replica out, how it is named in the
 * metrics, and, on PostgreSQL (DATABASE_URL), what mayLag hands back: a replica's reads, the
 * primary's answer when the replica cannot give one, no transactions. A "replica" here is the test
 * server itself (a primary answers the probe with lag 0) or a port nothing listens on; the drill
 * (tests/iam/read-replica-drill.test.ts) runs a real streaming standby.
 */
import pg from 'pg'
import { afterAll, describe, expect, it } from 'vitest'
import { createDatabase, databaseReplicaStats } from '../../iam/db/database'
import { mayLag, mayLagSnapshot, replicaIsDown, replicaNames } from '../../iam/db/replicas'
import { configSchema } from '../../iam/lib/config-schema'
import { freePort } from '../helpers/fake-iam'
import { createMigratedDatabase, createThrowawayPg, DATABASE_URL } from '../helpers/test-database'
import { skippedWithout, titled } from '../helpers/skip-notes'

const serverError = (code: string) => Object.assign(new pg.DatabaseError('from the server', 0, 'error'), { code, severity: 'FATAL' })

describe('replicaIsDown', () => {
  it('takes a replica out for connection, resource and shutdown errors and for no answer at all', () => {
    expect(replicaIsDown(serverError('57P01'))).toBe(true) // admin shutdown
    expect(replicaIsDown(serverError('57P03'))).toBe(true) // cannot connect now (starting up, shutting down)
    expect(replicaIsDown(serverError('08006'))).toBe(true)
    expect(replicaIsDown(serverError('53300'))).toBe(true) // too many connections
    expect(replicaIsDown(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }))).toBe(true)
    expect(replicaIsDown(new Error('Connection terminated unexpectedly'))).toBe(true)
  })

  it('leaves a replica in for an error of the statement itself', () => {
    expect(replicaIsDown(serverError('40001'))).toBe(false) // recovery conflict: this statement only
    expect(replicaIsDown(serverError('22P02'))).toBe(false) // bad input: the primary says the same
    expect(replicaIsDown(serverError('42703'))).toBe(false) // a column a migration has not brought yet
  })
})

describe('replicaNames', () => {
  it('names a replica by host and port, never by its credentials, and numbers a repeated address', () => {
    const names = replicaNames(['postgres://iam:s3cret@replica-a.internal:5433/iam', 'postgresql://replica-b/iam', 'postgres://other:pw@replica-a.internal:5433/iam'])
    expect(names).toEqual(['replica-a.internal:5433', 'replica-b:5432', 'replica-a.internal:5433#2'])
    expect(names.join(' ')).not.toMatch(/s3cret|pw|iam:/)
  })
})

// the PGlite pass only: its migrated dump is made for that pass (tests/helpers/pglite-template.ts)
describe.skipIf(skippedWithout('pglite'))(titled('mayLag on the embedded database (the PGlite pass)', 'pglite'), () => {
  it('is the database itself: PGlite has no replicas', async () => {
    // the run's migrated dump: no initdb of its own (tests/helpers/test-database.ts)
    const db = await createMigratedDatabase(configSchema.parse({ database: { url: 'memory://' } }))
    try {
      expect(mayLag(db)).toBe(db)
      expect(databaseReplicaStats(db)).toEqual([])
      expect(await mayLagSnapshot(db, async (trx) => (await trx.selectNoFrom((eb) => eb.val('one').as('answer')).execute())[0]!.answer)).toBe('one')
    } finally {
      await db.destroy()
    }
  })
})

describe.skipIf(skippedWithout('postgres'))(titled('mayLag on PostgreSQL', 'postgres'), () => {
  const cleanups: Array<() => Promise<void>> = []
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup()
  })

  async function open(replicaUrls: (url: string) => string[]) {
    const pgDb = await createThrowawayPg(DATABASE_URL!)
    const db = await createDatabase(configSchema.parse({ database: { url: pgDb.url, replicas: replicaUrls(pgDb.url) } }))
    cleanups.push(async () => {
      await db.destroy()
      await pgDb.drop()
    })
    return db
  }

  it('is the database itself without replicas', async () => {
    const db = await open(() => [])
    expect(mayLag(db)).toBe(db)
  })

  it('reads on a healthy replica and refuses a transaction there', async () => {
    const db = await open((url) => [url])
    const lagging = mayLag(db)
    expect(lagging).not.toBe(db)
    const rows = await lagging.selectNoFrom((eb) => eb.val('read').as('answer')).execute()
    expect(rows).toEqual([{ answer: 'read' }])
    await expect(lagging.transaction().execute(async () => 1)).rejects.toThrow(/a transaction runs on the primary/)
    // the probe: the test server is no standby, so its lag is 0
    const [stats] = databaseReplicaStats(db)
    expect(stats).toMatchObject({ name: `${new URL(DATABASE_URL!).hostname}:${new URL(DATABASE_URL!).port || '5432'}`, healthy: true })
  })

  it('answers from the primary when the replica refuses the connection, and marks it down', async () => {
    const closedPort = await freePort()
    const db = await open(() => [`postgres://postgres@127.0.0.1:${closedPort}/none`])
    const rows = await mayLag(db).selectNoFrom((eb) => eb.val('from the primary').as('answer')).execute()
    expect(rows).toEqual([{ answer: 'from the primary' }])
    expect(await mayLagSnapshot(db, async (trx) => (await trx.selectNoFrom((eb) => eb.val('two').as('answer')).execute())[0]!.answer)).toBe('two')
    expect(databaseReplicaStats(db)).toEqual([{ name: `127.0.0.1:${closedPort}`, healthy: false, lagSeconds: undefined }])
  })
})
