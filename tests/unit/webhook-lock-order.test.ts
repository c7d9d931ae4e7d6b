// The delivery worker records a failed attempt in a transaction that writes the delivery and then
// locks its endpoint (features/webhooks/deliver.ts, countFailure), and its success statement writes
// deliveries before their endpoints too. Deleting an endpoint (or an organization with its
// endpoints) must take the deliveries before the endpoint as well: a deletion that held the endpoint
// and then waited for a delivery the worker held would deadlock with it, and PostgreSQL would abort
// one of them (a 500 for the owner who deleted). PostgreSQL only: PGlite serves one connection at a time.
import { randomBytes } from 'node:crypto'
import { sql } from 'kysely'
import { afterAll, describe, expect, it } from 'vitest'
import { deleteWithLogs, PLATFORM } from '../../iam/features/webhooks/endpoints-repo'
import { twoConnections, untilWaitingOnLock } from '../helpers/lock-order'
import { skippedWithout, titled } from '../helpers/skip-notes'

let close: (() => Promise<void>) | undefined
afterAll(async () => {
  await close?.()
})

// PostgreSQL only when DATABASE_URL names a server (the PostgreSQL + Redis run of the suite sets it)
describe.skipIf(skippedWithout('postgres'))(titled('deleting a webhook endpoint while the worker records a failure of it, on PostgreSQL', 'postgres'), () => {
  it('waits for the worker, which locks the delivery and then the endpoint, and then deletes both: no deadlock', async () => {
    const { first: worker, second: owner, ...opened } = await twoConnections()
    close = opened.close

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
