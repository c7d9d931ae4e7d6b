// The delivery worker records a failed attempt in a transaction that writes the delivery and then
// locks its endpoint (features/webhooks/deliver.ts, countFailure), and its success statement writes
// deliveries before their endpoints too. Deleting an endpoint (or an organization with its
// endpoints) must take the deliveries before the endpoint as well: a deletion that held the endpoint
// and then waited for a delivery the worker held would deadlock with it, and PostgreSQL would abort
// one of them (a 500 for the owner who deleted). PostgreSQL only: PGlite serves one connection at a time.
import { randomBytes } from 'node:crypto'
import { sql, type Kysely } from 'kysely'
import { afterAll, describe, expect, it } from 'vitest'
import { migrateToLatest } from '../../iam/db/database'
import type { Database } from '../../iam/db/schema'
import { deleteWithLogs, PLATFORM } from '../../iam/features/webhooks/endpoints-repo'
import { connectDatabase, createThrowawayPg, DATABASE_URL } from '../helpers/test-database'
import { skippedWithout, titled } from '../helpers/skip-notes'

const cleanups: Array<() => Promise<void>> = []
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup()
})

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Resolves once some statement of the database waits for a row lock (checked every 20 ms). */
async function untilWaitingOnLock(db: Kysely<Database>): Promise<void> {
  for (let i = 0; i < 500; i++) {
    const { rows } = await sql<{ n: number }>`
      select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`.execute(db)
    if (rows[0]!.n > 0) return
    await pause(20)
  }
  throw new Error('no statement ever waited for the lock')
}

// PostgreSQL only when DATABASE_URL names a server (the PostgreSQL + Redis run of the suite sets it)
describe.skipIf(skippedWithout('postgres'))(titled('deleting a webhook endpoint while the worker records a failure of it, on PostgreSQL', 'postgres'), () => {
  it('waits for the worker, which locks the delivery and then the endpoint, and then deletes both: no deadlock', async () => {
    const pg = await createThrowawayPg(DATABASE_URL!)
    cleanups.push(() => pg.drop())
    const [worker, owner] = await Promise.all([connectDatabase(pg.url), connectDatabase(pg.url)])
    cleanups.push(async () => void (await Promise.all([worker.destroy(), owner.destroy()])))
    await migrateToLatest(worker)

    const now = new Date()
    const publicId = `ep_${randomBytes(16).toString('base64url').slice(0, 22)}`
    const { id: endpointId } = await worker
      .insertInto('webhook_endpoints')
      .values({ public_id: publicId, url: 'https://hooks.example.com/in', event_types: JSON.stringify(['*']), secret_sealed: 'sealed', created_at: now, updated_at: now })
      .returning('id')
      .executeTakeFirstOrThrow()
    const { id: deliveryId } = await worker
      .insertInto('webhook_deliveries')
      .values({ msg_id: 'msg_lock_order', endpoint_id: endpointId, event_type: 'user.updated', account_key: null, payload: JSON.stringify({ type: 'user.updated' }), status: 'pending', attempts: 0, next_attempt_at: now, created_at: now })
      .returning('id')
      .executeTakeFirstOrThrow()

    let deletion: Promise<number> | undefined
    const recorded = worker.transaction().execute(async (trx) => {
      // the failure's record: the delivery first, held until the commit ...
      await trx.updateTable('webhook_deliveries').set({ attempts: 1, leased_until: null }).where('id', '=', deliveryId).execute()
      deletion = owner.transaction().execute((del) => deleteWithLogs(del, PLATFORM, publicId))
      await untilWaitingOnLock(worker)
      // ... then its endpoint's run of failures, as countFailure locks it
      await sql`select id from webhook_endpoints where id = ${endpointId} for update`.execute(trx)
      await trx.updateTable('webhook_endpoints').set({ consecutive_failures: 1 }).where('id', '=', endpointId).execute()
    })

    await expect(recorded).resolves.toBeUndefined()
    expect(await deletion).toBe(1)
    expect(await owner.selectFrom('webhook_endpoints').select('id').where('id', '=', endpointId).execute()).toEqual([])
    expect(await owner.selectFrom('webhook_deliveries').select('id').where('endpoint_id', '=', endpointId).execute()).toEqual([])
  }, 60_000)
})
