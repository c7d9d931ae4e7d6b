/**
 * How the delivery worker writes its successes (iam/features/webhooks/deliver.ts), on PGlite with
 * every migration and a receiver on loopback: answers that arrive together are written together,
 * in fewer statements than deliveries, and each still only while this instance holds its lease.
 */
import { randomBytes } from 'node:crypto'
import { createServer, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Kysely, KyselyPlugin, RootOperationNode } from 'kysely'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { Database } from '../../iam/db/schema'
import { configSchema } from '../../iam/lib/config-schema'
import { startDeliveries } from '../../iam/features/webhooks/deliver'
import { newWebhookSecret, sealWebhookSecret } from '../../iam/features/webhooks/secret'
import { createMigratedDatabase } from '../helpers/test-database'

const config = configSchema.parse({
  database: { url: 'memory://' },
  secrets: { totpKeys: [{ id: 'k1', key: randomBytes(32).toString('base64url') }] },
  webhooks: { allowHttp: true, allowAddresses: ['127.0.0.0/8'] },
})

/** Counts the statements that write successes (the one with the group as a JSON parameter). */
let successWrites = 0
const counting: KyselyPlugin = {
  transformQuery({ node }): RootOperationNode {
    if (node.kind === 'RawNode' && node.sqlFragments.join('').includes('jsonb_to_recordset')) successWrites++
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
})

const ctx = () => ({ config, db, now: () => Date.now(), log: { info() {}, warn() {}, error() {} } }) as unknown as Parameters<typeof startDeliveries>[0]

async function endpointWithDeliveries(count: number, failures = 0): Promise<{ endpointId: number; ids: number[] }> {
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
  return { endpointId, ids }
}

/** Resolves once `count` requests are held at the receiver. */
const whenArrived = (count: number) =>
  new Promise<void>((resolve) => {
    arrived = (n) => n >= count && resolve()
    if (held.length >= count) resolve()
  })
const release = () => {
  for (const { res } of held) res.writeHead(204).end()
}

describe('the successes of the delivery worker', () => {
  it('writes answers that arrive together in fewer statements than deliveries, each delivery marked and logged once', async () => {
    const { endpointId, ids } = await endpointWithDeliveries(10, 3)
    const { claimed, done } = await startDeliveries(ctx(), 10)
    expect(claimed).toBe(10)
    await whenArrived(10)
    release()
    await done
    expect(successWrites).toBeGreaterThan(0)
    expect(successWrites).toBeLessThan(10)
    const rows = await db.selectFrom('webhook_deliveries').select(['id', 'status', 'attempts', 'last_status', 'leased_until']).where('id', 'in', ids).orderBy('id').execute()
    expect(rows.map((r) => [r.status, r.attempts, r.last_status, r.leased_until])).toEqual(ids.map(() => ['delivered', 1, 204, null]))
    const attempts = await db.selectFrom('webhook_attempts').select(['delivery_id', 'status']).where('endpoint_id', '=', endpointId).orderBy('delivery_id').execute()
    expect(attempts).toEqual(ids.map((id) => ({ delivery_id: id, status: 204 })))
    // a success ends the endpoint's run of failures
    const endpoint = await db.selectFrom('webhook_endpoints').select(['consecutive_failures', 'failing_since']).where('id', '=', endpointId).executeTakeFirstOrThrow()
    expect(endpoint).toEqual({ consecutive_failures: 0, failing_since: null })
  })

  it('writes nothing for a delivery whose lease another instance took meanwhile, and the others of its group all the same', async () => {
    const { endpointId, ids } = await endpointWithDeliveries(3)
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
    const logged = await db.selectFrom('webhook_attempts').select('delivery_id').where('endpoint_id', '=', endpointId).orderBy('delivery_id').execute()
    expect(logged.map((r) => r.delivery_id)).toEqual([ids[0], ids[2]])
  })
})
