/**
 * The delivery worker at the database (iam/features/webhooks/deliver.ts, outbox.ts, queue-order.ts),
 * on PGlite with every migration and a receiver on loopback that holds its answers until a test
 * releases them: answers that arrive together are written together, each only while this instance
 * holds its lease; one account's deliveries wait out of the claim's order behind the one before
 * them and are moved up one at a time as each is settled, delivered or dead; a delivery stranded
 * by the race of a queueing and a settling is moved up by the sweep; the log's prune deletes only
 * what is settled and old enough.
 */
import { randomBytes } from 'node:crypto'
import { createServer, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Kysely, KyselyPlugin, RootOperationNode } from 'kysely'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { Database } from '../../iam/db/schema'
import { configSchema } from '../../iam/lib/config-schema'
import { startDeliveries } from '../../iam/features/webhooks/deliver'
import { listDeliveries, replayDelivery, replayRange } from '../../iam/features/webhooks/deliveries'
import { createEndpoint, deleteEndpoint } from '../../iam/features/webhooks/endpoints'
import { PLATFORM } from '../../iam/features/webhooks/endpoints-repo'
import { enqueueWebhookEvent } from '../../iam/features/webhooks/outbox'
import { moveUpStranded, waitsBehindEarlier } from '../../iam/features/webhooks/queue-order'
import { pruneOrphanedDeliveries, pruneSettledDeliveries } from '../../iam/features/webhooks/retention'
import { newWebhookSecret, sealWebhookSecret } from '../../iam/features/webhooks/secret'
import { createMigratedDatabase } from '../helpers/test-database'

const config = configSchema.parse({
  database: { url: 'memory://' },
  secrets: { totpKeys: [{ id: 'k1', key: randomBytes(32).toString('base64url') }] },
  webhooks: { allowHttp: true, allowAddresses: ['127.0.0.0/8'] },
})

/** Counts the statements that write successes (the one with the group as a JSON parameter), and the claims. */
let successWrites = 0
let claims = 0
const counting: KyselyPlugin = {
  transformQuery({ node }): RootOperationNode {
    if (node.kind === 'RawNode' && node.sqlFragments.join('').includes('jsonb_to_recordset')) successWrites++
    if (node.kind === 'RawNode' && node.sqlFragments.join('').includes('skip locked')) claims++
    return node
  },
  transformResult: async ({ result }) => result,
}

let db: Kysely<Database>
let server: Server
let port: number
/** answers held back until `release` */
let held: Array<{ res: ServerResponse; msgId: string }> = []
let arrived: (count: number) => void = () => {}

beforeAll(async () => {
  db = (await createMigratedDatabase(config)).withPlugin(counting)
  server = createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      held.push({ res, msgId: String(req.headers['webhook-id']) })
      arrived(held.length)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  port = (server.address() as AddressInfo).port
}, 60_000)
afterAll(async () => {
  server?.closeAllConnections()
  await new Promise((resolve) => server?.close(resolve))
  await db?.destroy()
})
beforeEach(() => {
  held = []
  successWrites = 0
  claims = 0
})

type Ctx = Parameters<typeof startDeliveries>[0] & Parameters<typeof listDeliveries>[0]
const ctx = (c = config, now = () => Date.now()) => ({ config: c, db, now, log: { info() {}, warn() {}, error() {} } }) as unknown as Ctx

async function endpointWithDeliveries(count: number, failures = 0): Promise<{ endpointId: number; publicId: string; ids: number[] }> {
  const publicId = `whe_${randomBytes(8).toString('hex')}`
  const now = new Date()
  const { id: endpointId } = await db
    .insertInto('webhook_endpoints')
    .values({
      public_id: publicId,
      url: `http://127.0.0.1:${port}/hook`,
      event_types: JSON.stringify(['*']),
      secret_sealed: sealWebhookSecret(config.secrets.totpKeys, publicId, newWebhookSecret()),
      consecutive_failures: failures,
      failing_since: failures ? now : null,
      created_at: now,
      updated_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow()
  const ids: number[] = []
  for (let i = 0; i < count; i++) {
    const { id } = await db
      .insertInto('webhook_deliveries')
      .values({ msg_id: `msg_${randomBytes(8).toString('hex')}`, endpoint_id: endpointId, event_type: 'user.updated', account_key: null, payload: JSON.stringify({ type: 'user.updated', n: i }), status: 'pending', attempts: 0, next_attempt_at: now, created_at: now })
      .returning('id')
      .executeTakeFirstOrThrow()
    ids.push(id)
  }
  return { endpointId, publicId, ids }
}

/** Resolves once `count` requests are held at the receiver. */
const whenArrived = (count: number) =>
  new Promise<void>((resolve) => {
    arrived = (n) => n >= count && resolve()
    if (held.length >= count) resolve()
  })
const release = (status = 204) => {
  for (const { res } of held.splice(0)) res.writeHead(status).end()
}

describe('the successes of the delivery worker', () => {
  it('writes answers that arrive together in fewer statements than deliveries, each delivery marked delivered with its attempt kept on its row, logged once', async () => {
    const { endpointId, publicId, ids } = await endpointWithDeliveries(10, 3)
    const { claimed, done } = await startDeliveries(ctx(), 10)
    expect(claimed).toBe(10)
    await whenArrived(10)
    release()
    await done
    expect(successWrites).toBeGreaterThan(0)
    expect(successWrites).toBeLessThan(10)
    const rows = await db.selectFrom('webhook_deliveries').select(['id', 'status', 'attempts', 'last_status', 'leased_until']).where('id', 'in', ids).orderBy('id').execute()
    expect(rows.map((r) => [r.status, r.attempts, r.last_status, r.leased_until])).toEqual(ids.map(() => ['delivered', 1, 204, null]))
    // the delivering attempt is the row's own: no webhook_attempts row, one entry in the log
    expect(await db.selectFrom('webhook_attempts').select('id').where('endpoint_id', '=', endpointId).execute()).toEqual([])
    const listed = await listDeliveries(ctx(), PLATFORM, publicId, { limit: 20 })
    expect(listed!.map((d) => [d.id, d.log.map((a) => [a.status, a.error, a.at === d.deliveredAt, a.durationMs >= 0])]).sort((a, b) => Number(a[0]) - Number(b[0]))).toEqual(
      ids.map((id) => [id, [[204, null, true, true]]]),
    )
    // a success ends the endpoint's run of failures
    const endpoint = await db.selectFrom('webhook_endpoints').select(['consecutive_failures', 'failing_since']).where('id', '=', endpointId).executeTakeFirstOrThrow()
    expect(endpoint).toEqual({ consecutive_failures: 0, failing_since: null })
  })

  it('writes nothing for a delivery whose lease another instance took meanwhile, and the others of its group all the same', async () => {
    const { ids } = await endpointWithDeliveries(3)
    const { done } = await startDeliveries(ctx(), 3)
    await whenArrived(3)
    // the lease ran out and another instance took the middle one while its answer was on the way
    const theirs = new Date(Date.now() + 120_000)
    await db.updateTable('webhook_deliveries').set({ leased_until: theirs }).where('id', '=', ids[1]!).execute()
    release()
    await done
    const rows = await db.selectFrom('webhook_deliveries').select(['id', 'status', 'attempts']).where('id', 'in', ids).orderBy('id').execute()
    expect(rows).toEqual([
      { id: ids[0], status: 'delivered', attempts: 1 },
      { id: ids[1], status: 'pending', attempts: 0 },
      { id: ids[2], status: 'delivered', attempts: 1 },
    ])
    const taken = await db.selectFrom('webhook_deliveries').select('leased_until').where('id', '=', ids[1]!).executeTakeFirstOrThrow()
    expect(taken.leased_until?.getTime()).toBe(theirs.getTime())
    // the delivering attempt is kept on the two rows written, not on the one taken
    const logged = await db.selectFrom('webhook_deliveries').select('id').where('id', 'in', ids).where('last_duration_ms', 'is not', null).orderBy('id').execute()
    expect(logged.map((r) => r.id)).toEqual([ids[0], ids[2]])
  })
})

describe('one account, one endpoint: in order, and a claim never reads the queue behind', () => {
  const queueFor = async (endpointId: number, account: string, count: number) => {
    const ids: number[] = []
    for (let i = 0; i < count; i++) {
      const rows = await enqueueWebhookEvent(db, { type: 'user.updated', subject: { publicId: account }, data: { n: i }, at: new Date(), endpointId })
      ids.push(rows[0]!.id)
    }
    return ids
  }
  const nextAttempts = async (ids: number[]) =>
    ids.length === 0
      ? []
      : (await db.selectFrom('webhook_deliveries').select(['id', 'next_attempt_at']).where('id', 'in', ids).orderBy('id').execute()).map((r) => (waitsBehindEarlier(r.next_attempt_at) ? 'waiting' : 'due'))

  it('queues a delivery behind a pending one of the same account as waiting, and moves each up only once the one before it is delivered', async () => {
    const { endpointId, publicId } = await endpointWithDeliveries(0)
    const account = `acct_${randomBytes(4).toString('hex')}`
    const ids = await queueFor(endpointId, account, 3)
    const other = await queueFor(endpointId, `other_${randomBytes(4).toString('hex')}`, 1)
    expect(await nextAttempts(ids)).toEqual(['due', 'waiting', 'waiting'])
    expect(await nextAttempts(other)).toEqual(['due'])
    // the delivery log shows no next attempt for a waiting delivery
    const listed = await listDeliveries(ctx(), PLATFORM, publicId, { limit: 10 })
    expect(listed!.filter((d) => ids.includes(d.id)).map((d) => d.nextAttemptAt === null)).toEqual([true, true, false])

    const sent: string[] = []
    for (let round = 0; round < 3; round++) {
      const { claimed, done } = await startDeliveries(ctx(), 10)
      // the account's first pending delivery, and the other account's in the first round
      expect(claimed).toBe(round === 0 ? 2 : 1)
      await whenArrived(claimed)
      sent.push(...held.map((h) => h.msgId))
      release()
      await done
      expect(await nextAttempts(ids.slice(round + 1))).toEqual(ids.slice(round + 1).map((_, i) => (i === 0 ? 'due' : 'waiting')))
    }
    const msgIds = await db.selectFrom('webhook_deliveries').select(['id', 'msg_id']).where('id', 'in', ids).orderBy('id').execute()
    expect(sent.filter((m) => msgIds.some((r) => r.msg_id === m))).toEqual(msgIds.map((r) => r.msg_id))
    expect((await startDeliveries(ctx(), 10)).claimed).toBe(0)
  })

  it('moves the next delivery up when the one before it is given up (dead)', async () => {
    const { endpointId } = await endpointWithDeliveries(0)
    const ids = await queueFor(endpointId, `acct_${randomBytes(4).toString('hex')}`, 2)
    const giveUpAtOnce = { ...config, webhooks: { ...config.webhooks, retryScheduleMs: [] } }
    const { claimed, done } = await startDeliveries(ctx(giveUpAtOnce), 10)
    expect(claimed).toBe(1)
    await whenArrived(1)
    release(500)
    await done
    const rows = await db.selectFrom('webhook_deliveries').select(['status']).where('id', 'in', ids).orderBy('id').execute()
    expect(rows.map((r) => r.status)).toEqual(['dead', 'pending'])
    expect(await nextAttempts(ids.slice(1))).toEqual(['due'])
  })

  it('moves up a delivery left waiting with none pending before it (queued as the one before was settled), and no other', async () => {
    const { endpointId } = await endpointWithDeliveries(0)
    const account = `acct_${randomBytes(4).toString('hex')}`
    const [first, second, third] = await queueFor(endpointId, account, 3)
    // the race: the first was settled by a statement that did not see the second yet
    await db.updateTable('webhook_deliveries').set({ status: 'delivered' }).where('id', '=', first!).execute()
    expect(await nextAttempts([second!, third!])).toEqual(['waiting', 'waiting'])
    expect(await moveUpStranded(db, new Date())).toBe(1)
    expect(await nextAttempts([second!, third!])).toEqual(['due', 'waiting'])
    expect(await moveUpStranded(db, new Date())).toBe(0)
  })
})

describe('a chain: each success leases the next delivery of its account, sent without a claim', () => {
  const queueFor = async (endpointId: number, account: string, count: number) => {
    const ids: number[] = []
    for (let i = 0; i < count; i++) {
      const rows = await enqueueWebhookEvent(db, { type: 'user.updated', subject: { publicId: account }, data: { n: i }, at: new Date(), endpointId })
      ids.push(rows[0]!.id)
    }
    return ids
  }
  // what the tests before left pending would be claimed with these
  beforeEach(async () => {
    await db.updateTable('webhook_deliveries').set({ status: 'dead' }).where('status', '=', 'pending').execute()
  })
  const deliveries = (ids: number[]) =>
    db.selectFrom('webhook_deliveries').select(['id', 'msg_id', 'status', 'attempts', 'leased_until', 'next_attempt_at']).where('id', 'in', ids).orderBy('id').execute()

  it('sends one account queued deliveries in order from one claim, each delivered and logged once', async () => {
    const { endpointId } = await endpointWithDeliveries(0)
    const ids = await queueFor(endpointId, `acct_${randomBytes(4).toString('hex')}`, 3)
    const { claimed, settled, done } = await startDeliveries(ctx(), 10, { chain: () => true })
    expect(claimed).toBe(1)
    expect(settled).toHaveLength(1)
    const sent: string[] = []
    for (let i = 0; i < 3; i++) {
      await whenArrived(1)
      // one at a time: the next is leased only once the one before it is written as delivered
      expect(held).toHaveLength(1)
      sent.push(held[0]!.msgId)
      release()
    }
    await done
    expect(claims).toBe(1)
    const rows = await deliveries(ids)
    expect(sent).toEqual(rows.map((r) => r.msg_id))
    expect(rows.map((r) => [r.status, r.attempts, r.leased_until])).toEqual(ids.map(() => ['delivered', 1, null]))
    const delivered = await db.selectFrom('webhook_deliveries').select(['last_status', 'last_duration_ms']).where('id', 'in', ids).orderBy('id').execute()
    expect(delivered.map((r) => [r.last_status, r.last_duration_ms !== null])).toEqual(ids.map(() => [204, true]))
    expect((await startDeliveries(ctx(), 10)).claimed).toBe(0)
  })

  it('leaves the next delivery due and unleased for a claim when the worker stops during the one before', async () => {
    const { endpointId } = await endpointWithDeliveries(0)
    const ids = await queueFor(endpointId, `acct_${randomBytes(4).toString('hex')}`, 2)
    let going = true
    const { settled } = await startDeliveries(ctx(), 10, { chain: () => going })
    await whenArrived(1)
    going = false
    release()
    await Promise.all(settled)
    expect(held).toHaveLength(0)
    const [first, second] = await deliveries(ids)
    expect(first!.status).toBe('delivered')
    expect([second!.status, second!.leased_until, waitsBehindEarlier(second!.next_attempt_at)]).toEqual(['pending', null, false])
    const taken = await startDeliveries(ctx(), 10)
    expect(taken.claimed).toBe(1)
    await whenArrived(1)
    release()
    await taken.done
    expect((await deliveries(ids)).map((r) => r.status)).toEqual(['delivered', 'delivered'])
  })

  it('does not lease the next delivery of an endpoint switched off meanwhile, and no claim takes it', async () => {
    const { endpointId } = await endpointWithDeliveries(0)
    const ids = await queueFor(endpointId, `acct_${randomBytes(4).toString('hex')}`, 2)
    const { settled } = await startDeliveries(ctx(), 10, { chain: () => true })
    await whenArrived(1)
    await db.updateTable('webhook_endpoints').set({ enabled: false, disabled_reason: 'admin' }).where('id', '=', endpointId).execute()
    release()
    await Promise.all(settled)
    expect(held).toHaveLength(0)
    const [, second] = await deliveries(ids)
    expect([second!.status, second!.leased_until, waitsBehindEarlier(second!.next_attempt_at)]).toEqual(['pending', null, false])
    expect((await startDeliveries(ctx(), 10, { chain: () => true })).claimed).toBe(0)
  })

  it('takes a chained delivery again once its lease ran out when its instance died mid-delivery, and writes nothing for the late answer', async () => {
    const { endpointId } = await endpointWithDeliveries(0)
    const ids = await queueFor(endpointId, `acct_${randomBytes(4).toString('hex')}`, 2)
    const { settled } = await startDeliveries(ctx(), 10, { chain: () => true })
    await whenArrived(1)
    release()
    // the second, chained: sent, and its instance dies before the answer
    await whenArrived(1)
    const [, chained] = await deliveries(ids)
    expect([chained!.status, waitsBehindEarlier(chained!.next_attempt_at), chained!.leased_until === null]).toEqual(['pending', false, false])
    expect((await startDeliveries(ctx(), 10)).claimed).toBe(0)
    const afterLease = ctx(config, () => chained!.leased_until!.getTime() + 1000)
    const taken = await startDeliveries(afterLease, 10)
    expect(taken.claimed).toBe(1)
    await whenArrived(2)
    // the dead instance's answer first: its lease is gone, so only the second instance's is written
    held.shift()!.res.writeHead(204).end()
    await Promise.all(settled)
    expect((await deliveries(ids)).map((r) => r.status)).toEqual(['delivered', 'pending'])
    release()
    await taken.done
    expect((await deliveries(ids)).map((r) => [r.status, r.attempts])).toEqual([['delivered', 1], ['delivered', 1]])
  })
})

describe('replaying a delivered delivery', () => {
  it('keeps the attempt that delivered it in its log, before the attempts of the replay', async () => {
    await db.updateTable('webhook_deliveries').set({ status: 'dead' }).where('status', '=', 'pending').execute()
    const { publicId, ids } = await endpointWithDeliveries(1)
    const first = await startDeliveries(ctx(), 10)
    expect(first.claimed).toBe(1)
    await whenArrived(1)
    release(204)
    await first.done
    expect(await replayDelivery(ctx(), PLATFORM, publicId, ids[0]!)).toEqual({ ok: true, replayed: 1 })
    const second = await startDeliveries(ctx(), 10)
    expect(second.claimed).toBe(1)
    await whenArrived(1)
    release(201)
    await second.done
    const [listed] = (await listDeliveries(ctx(), PLATFORM, publicId, { limit: 10 }))!
    expect(listed!.status).toBe('delivered')
    expect(listed!.log.map((a) => a.status)).toEqual([204, 201])
    expect(listed!.log[1]!.at).toBe(listed!.deliveredAt)
  })

  it('moves each delivering attempt of a replayed range into the log once, and leaves the delivery pending without it', async () => {
    await db.updateTable('webhook_deliveries').set({ status: 'dead' }).where('status', '=', 'pending').execute()
    const { endpointId, publicId, ids } = await endpointWithDeliveries(2)
    const { done } = await startDeliveries(ctx(), 10)
    await whenArrived(2)
    release(202)
    await done
    const since = new Date(Date.now() - 60_000)
    expect(await replayRange(ctx(), PLATFORM, publicId, { since, until: null, delivered: true })).toEqual({ ok: true, replayed: 2 })
    const rows = await db.selectFrom('webhook_deliveries').select(['status', 'attempts', 'delivered_at', 'last_duration_ms', 'last_excerpt']).where('id', 'in', ids).execute()
    expect(rows).toEqual(ids.map(() => ({ status: 'pending', attempts: 0, delivered_at: null, last_duration_ms: null, last_excerpt: null })))
    const logged = await db.selectFrom('webhook_attempts').select(['delivery_id', 'status']).where('endpoint_id', '=', endpointId).orderBy('delivery_id').execute()
    expect(logged).toEqual(ids.map((id) => ({ delivery_id: id, status: 202 })))
    const listed = (await listDeliveries(ctx(), PLATFORM, publicId, { limit: 10 }))!
    expect(listed.map((d) => d.log.map((a) => a.status))).toEqual([[202], [202]])
    // taken again at once, then delivered: the earlier attempt stays, the new one follows it
    const again = await startDeliveries(ctx(), 10)
    expect(again.claimed).toBe(2)
    await whenArrived(2)
    release(200)
    await again.done
    const relisted = (await listDeliveries(ctx(), PLATFORM, publicId, { limit: 10 }))!
    expect(relisted.map((d) => d.log.map((a) => a.status))).toEqual([[202, 200], [202, 200]])
  })
})

describe('deleting an endpoint', () => {
  it('removes its deliveries and their logged attempts with it, and no other endpoint rows', async () => {
    await db.updateTable('webhook_deliveries').set({ status: 'dead' }).where('status', '=', 'pending').execute()
    const gone = await endpointWithDeliveries(2)
    const kept = await endpointWithDeliveries(1)
    const { claimed, done } = await startDeliveries(ctx(), 10)
    expect(claimed).toBe(3)
    await whenArrived(3)
    // failed attempts: the ones webhook_attempts keeps
    release(500)
    await done
    const attemptsOf = async (endpointId: number) => (await db.selectFrom('webhook_attempts').select('id').where('endpoint_id', '=', endpointId).execute()).length
    expect([await attemptsOf(gone.endpointId), await attemptsOf(kept.endpointId)]).toEqual([2, 1])
    expect(await deleteEndpoint(ctx(), PLATFORM, gone.publicId)).toBe(true)
    expect([await attemptsOf(gone.endpointId), await attemptsOf(kept.endpointId)]).toEqual([0, 1])
    const left = await db.selectFrom('webhook_deliveries').select('id').where('id', 'in', [...gone.ids, ...kept.ids]).execute()
    expect(left.map((r) => r.id)).toEqual(kept.ids)
    expect(await deleteEndpoint(ctx(), PLATFORM, gone.publicId)).toBe(false)
  })
})

describe("the delivery log's retention", () => {
  const DAY_MS = 24 * 3600 * 1000

  it('deletes settled deliveries queued before the cutoff with their logged attempts, oldest first in batches, and never a pending one however old', async () => {
    const { endpointId, ids } = await endpointWithDeliveries(6)
    const old = new Date(Date.now() - 40 * DAY_MS)
    // 0 and 1 delivered, 2 and 3 dead, 4 still pending: all queued 40 days ago; 5 delivered, queued today
    await db.updateTable('webhook_deliveries').set({ status: 'delivered', delivered_at: old }).where('id', 'in', [ids[0]!, ids[1]!, ids[5]!]).execute()
    await db.updateTable('webhook_deliveries').set({ status: 'dead' }).where('id', 'in', [ids[2]!, ids[3]!]).execute()
    await db.updateTable('webhook_deliveries').set({ created_at: old }).where('id', 'in', ids.slice(0, 5)).execute()
    for (const id of ids.slice(0, 5)) {
      await db.insertInto('webhook_attempts').values({ delivery_id: id, endpoint_id: endpointId, attempted_at: old, status: 500, duration_ms: 3, error: null, response_excerpt: 'no' }).execute()
    }
    const left = async () => (await db.selectFrom('webhook_deliveries').select('id').where('endpoint_id', '=', endpointId).orderBy('id').execute()).map((r) => r.id)
    const logged = async () => (await db.selectFrom('webhook_attempts').select('delivery_id').where('endpoint_id', '=', endpointId).orderBy('delivery_id').execute()).map((r) => r.delivery_id)
    const cutoff = new Date(Date.now() - 30 * DAY_MS)

    // one batch of two: the two oldest
    expect(await pruneSettledDeliveries(db, cutoff, { batch: 2, maxBatches: 1 })).toBe(2)
    expect(await left()).toEqual([ids[2], ids[3], ids[4], ids[5]])
    expect(await logged()).toEqual([ids[2], ids[3], ids[4]])
    // batches until one comes back short: the dead ones, then nothing more
    expect(await pruneSettledDeliveries(db, cutoff, { batch: 2 })).toBe(2)
    expect(await pruneSettledDeliveries(db, cutoff, { batch: 2 })).toBe(0)
    expect(await left()).toEqual([ids[4], ids[5]])
    expect(await logged()).toEqual([ids[4]])
  })

  it('deletes a pending delivery whose endpoint is gone (queued as its endpoint was deleted), with its attempts, and keeps a live endpoint\'s', async () => {
    const gone = await endpointWithDeliveries(1)
    const live = await endpointWithDeliveries(1)
    await db.insertInto('webhook_attempts').values({ delivery_id: gone.ids[0]!, endpoint_id: gone.endpointId, attempted_at: new Date(), status: 500, duration_ms: 3, error: null, response_excerpt: null }).execute()
    // the endpoint's row alone, as a deletion that committed before this delivery's change did leaves it
    await db.deleteFrom('webhook_endpoints').where('id', '=', gone.endpointId).execute()

    expect(await pruneOrphanedDeliveries(db)).toBeGreaterThanOrEqual(1)
    expect(await db.selectFrom('webhook_deliveries').select('id').where('id', 'in', [...gone.ids, ...live.ids]).execute()).toEqual([{ id: live.ids[0] }])
    expect(await db.selectFrom('webhook_attempts').select('id').where('delivery_id', '=', gone.ids[0]!).execute()).toEqual([])
  })
})

describe('deliveries in flight per endpoint', () => {
  // what a test leaves due would be the next test's claim
  const dropPending = (...endpointIds: number[]) => db.deleteFrom('webhook_deliveries').where('endpoint_id', 'in', endpointIds).where('status', '=', 'pending').execute()

  it('a claim takes at most webhooks.maxInFlightPerEndpoint for one endpoint, less those already in flight on the instance, and the others\' as usual', async () => {
    const capped = configSchema.parse({ ...config, webhooks: { ...config.webhooks, maxInFlightPerEndpoint: 3 } })
    const slow = await endpointWithDeliveries(8)
    const other = await endpointWithDeliveries(2)
    const first = await startDeliveries(ctx(capped), 10)
    const taken = (slots: Array<{ endpointId: number }>, endpointId: number) => slots.filter((slot) => slot.endpointId === endpointId).length
    expect(taken(first.slots, slow.endpointId)).toBe(3)
    expect(taken(first.slots, other.endpointId)).toBe(2)
    // with those in flight, the slow endpoint has no room left: nothing more of it is taken
    const busy = new Map([[slow.endpointId, 3], [other.endpointId, 2]])
    const second = await startDeliveries(ctx(capped), 10, { busy })
    expect(taken(second.slots, slow.endpointId)).toBe(0)
    // one of its three answered: room for one more
    const third = await startDeliveries(ctx(capped), 10, { busy: new Map([[slow.endpointId, 2]]) })
    expect(taken(third.slots, slow.endpointId)).toBe(1)
    const answering = setInterval(() => release(200), 10)
    await Promise.all([first.done, second.done, third.done]).finally(() => clearInterval(answering))
    await dropPending(slow.endpointId, other.endpointId)
  })

  it("an endpoint without room does not hide the others' due deliveries behind its older backlog", async () => {
    const capped = configSchema.parse({ ...config, webhooks: { ...config.webhooks, maxInFlightPerEndpoint: 3 } })
    const slow = await endpointWithDeliveries(8)
    const other = await endpointWithDeliveries(1)
    // a claim of one reads a window of four due rows: the slow endpoint's oldest four, were it not full
    const claim = await startDeliveries(ctx(capped), 1, { busy: new Map([[slow.endpointId, 3]]) })
    expect(claim.slots.map((slot) => slot.endpointId)).toEqual([other.endpointId])
    const answering = setInterval(() => release(200), 10)
    await claim.done
    // the slow endpoint's backlog is taken by claims that have room for it, up to the cap each
    const rest = await startDeliveries(ctx(capped), 10)
    expect(rest.slots.map((slot) => slot.endpointId)).toEqual([slow.endpointId, slow.endpointId, slow.endpointId])
    await rest.done.finally(() => clearInterval(answering))
    await dropPending(slow.endpointId, other.endpointId)
  })
})

describe("an organization's endpoint", () => {
  it('added just after its organization was deleted (the owner\'s check passed before): org_not_found, nothing written', async () => {
    const orgId = '0b9d7c1e-5f3a-4c2b-8e6d-1a2b3c4d5e6f'
    const before = await db.selectFrom('webhook_endpoints').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()
    const result = await createEndpoint(ctx(), { kind: 'organization', organizationId: orgId }, { url: 'https://1.1.1.1/in', eventTypes: ['*'] })
    expect(result).toEqual({ ok: false, code: 'org_not_found' })
    const after = await db.selectFrom('webhook_endpoints').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()
    expect(Number(after.n)).toBe(Number(before.n))
  })

  it("is refused at delivery an address the operator opened to the platform's endpoints only, and the platform's is sent there", async () => {
    const { public_id: orgId } = await db.insertInto('organizations').values({ slug: `hooks-${randomBytes(4).toString('hex')}`, name: 'Hooks' }).returning('public_id').executeTakeFirstOrThrow()
    const platform = await endpointWithDeliveries(1)
    const own = await endpointWithDeliveries(1)
    await db.updateTable('webhook_endpoints').set({ organization_id: orgId }).where('id', '=', own.endpointId).execute()
    // every request that arrives is answered at once (a delivery left pending by another test among them)
    const answering = setInterval(() => release(200), 10)
    const { done } = await startDeliveries(ctx(), 10)
    await done.finally(() => clearInterval(answering))
    const [ownDelivery] = (await listDeliveries(ctx(), { kind: 'organization', organizationId: orgId }, own.publicId, { limit: 5 }))!
    expect(ownDelivery!.status).toBe('pending')
    expect(ownDelivery!.log.map((a) => a.error)).toEqual(['address_refused'])
    const [platformDelivery] = (await listDeliveries(ctx(), PLATFORM, platform.publicId, { limit: 5 }))!
    expect(platformDelivery!.status).toBe('delivered')
  })
})
