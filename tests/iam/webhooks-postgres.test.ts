/**
 * Webhook delivery across instances on one PostgreSQL database (features/webhooks/deliver.ts):
 * every instance runs the worker, rows are taken with a lease under FOR UPDATE SKIP LOCKED. Two
 * instances deliver each event exactly once; an instance killed mid-delivery loses nothing, its
 * leased rows are delivered by another once the lease ran out. A worker takes more deliveries as
 * soon as answers free its slots, not only at its poll. Skipped without DATABASE_URL (the
 * embedded database is one process's own).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loginUser, PROXY_CONFIG, signupUser, type Session } from '../helpers/accounts'
import { startIam, type IamEndpoint, type IamServer, type Json } from '../helpers/iam-server'
import { waitUntil } from '../helpers/wait'
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver'
import { authed, WIDE_LOGIN } from './second-factor-http'
import { skippedWithout, titled } from '../helpers/skip-notes'

const START_TIMEOUT_MS = 180_000
const TEST_TIMEOUT_MS = 240_000
const RECEIVER_HOST = '127.0.0.2'
const EVENTS = 1000
const KILLED_EVENTS = 5
const REFILL_EVENTS = 6
const REFILL_SIGN_INS = 4
// the refilling worker's poll: a backlog delivered within REFILL_DEADLINE_MS of its start was not left to it
const REFILL_POLL_MS = 60_000
const REFILL_DEADLINE_MS = 20_000

// the lease (3 s) outlasts a delivery's answer and record even on a loaded 2-core box: a lease that
// runs out first is a second sending by design (at least once), which the exactly-once count below
// would read as a failure; the killed instance's rows wait it out
const CONFIG = {
  ...PROXY_CONFIG,
  ...WIDE_LOGIN,
  webhooks: { enabled: true, pollMs: 50, batch: 10, leaseMs: 3000, retryScheduleMs: [100, 100, 100], jitter: 0, timeoutMs: 60_000, allowHttp: true, allowAddresses: [`${RECEIVER_HOST}/32`] },
}

let hooks: WebhookReceiver
let first: IamServer
const others: IamServer[] = []
let admin: Session

/** Another instance on the first one's database and data dir (its dev secrets: the key sealing endpoint secrets, the access token keys). */
const another = () => startIam({ config: { ...CONFIG, service: { ...PROXY_CONFIG.service, dataDir: first.dataDir } }, share: first.share })

async function json(res: Response): Promise<Json> {
  const text = await res.text()
  try {
    return JSON.parse(text) as Json
  } catch {
    throw new Error(`not JSON (${res.status}): ${text}`)
  }
}

const asAdmin = (iam: IamEndpoint, method: string, path: string, as = admin) => authed(iam, as, method, path)

async function addEndpoint(iam: IamEndpoint, path: string, eventTypes = ['user.deleted'], as = admin): Promise<string> {
  const res = await authed(iam, as, 'POST', '/admin/webhooks', { url: `${hooks.base}${path}`, eventTypes })
  const body = await json(res)
  expect(res.status, JSON.stringify(body)).toBe(200)
  const data = body.data as { endpoint: { id: string }; secret: string }
  hooks.secrets.set(path, [data.secret])
  return data.endpoint.id
}

async function queueTests(iam: IamEndpoint, endpointId: string, count: number, as = admin): Promise<string[]> {
  const ids: string[] = []
  for (let i = 0; i < count; i++) {
    const res = await asAdmin(iam, 'POST', `/admin/webhooks/${endpointId}/test`, as)
    const body = await json(res)
    expect(res.status, JSON.stringify(body)).toBe(200)
    ids.push((body.data as { msgId: string }).msgId)
  }
  return ids
}

async function deliveries(iam: IamEndpoint, endpointId: string, as = admin): Promise<Array<{ msgId: string; status: string; log: unknown[] }>> {
  const res = await asAdmin(iam, 'GET', `/admin/webhooks/${endpointId}/deliveries?limit=100`, as)
  const body = await json(res)
  expect(res.status, JSON.stringify(body)).toBe(200)
  return (body.data as { deliveries: Array<{ msgId: string; status: string; log: unknown[] }> }).deliveries
}

/** How many times the receiver got each id at `path` (verified deliveries only). */
function countsAt(path: string): Map<string, number> {
  const counts = new Map<string, number>()
  for (const r of hooks.at(path)) {
    expect(r.error, 'every delivery verifies').toBeNull()
    const id = r.headers['webhook-id'] as string
    counts.set(id, (counts.get(id) ?? 0) + 1)
  }
  return counts
}

describe.skipIf(skippedWithout('postgres'))(titled('webhook delivery across instances (PostgreSQL)', 'postgres'), () => {
  beforeAll(async () => {
    hooks = await startWebhookReceiver(RECEIVER_HOST)
    first = await startIam({ config: CONFIG, env: { IAM_TEST_ROUTES: '1' } })
    admin = await signupUser(first, { client: { ip: '203.0.113.241' } })
    const res = await fetch(`${first.url}/__test/platform-admin`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: admin.email, admin: true }) })
    expect(res.status).toBe(200)
  }, START_TIMEOUT_MS)

  afterAll(async () => {
    hooks?.releaseHanging()
    await Promise.all([first?.stop(), ...others.map((o) => o.stop())])
    await hooks?.stop()
  })

  it(`delivers ${EVENTS} events queued on two instances exactly once each`, async () => {
    const second = await another()
    others.push(second)
    const endpointId = await addEndpoint(first, '/both')
    // both instances queue at once, each delivering while the other still queues
    const queued = (await Promise.all([queueTests(first, endpointId, EVENTS / 2), queueTests(second, endpointId, EVENTS / 2)])).flat()
    await waitUntil(async () => (await deliveries(first, endpointId)).filter((d) => d.status === 'delivered').length === 100, 'the newest 100 to be delivered', 120_000)
    await waitUntil(() => countsAt('/both').size === EVENTS, `${EVENTS} distinct deliveries`, 120_000)
    const counts = countsAt('/both')
    expect([...counts.keys()].sort()).toEqual([...queued].sort())
    expect([...counts.values()].filter((n) => n !== 1)).toEqual([])
    // the receiver's view is the proof: no id twice, none missing
    await second.stop()
    others.splice(others.indexOf(second), 1)
  }, TEST_TIMEOUT_MS)

  it('loses nothing when an instance is killed mid-delivery: another delivers its leased rows after the lease', async () => {
    hooks.scripts.set('/killed', ['hang'])
    const endpointId = await addEndpoint(first, '/killed')
    const queued = await queueTests(first, endpointId, KILLED_EVENTS)
    await waitUntil(() => hooks.at('/killed').length === KILLED_EVENTS, 'the first instance to hold every delivery', 60_000)
    first.process.kill('SIGKILL')
    await waitUntil(() => first.process.exitCode !== null || first.process.signalCode !== null, 'the first instance to die')
    hooks.releaseHanging()
    hooks.scripts.set('/killed', [{ status: 200 }])
    const third = await another()
    others.push(third)
    await waitUntil(async () => (await deliveries(third, endpointId)).every((d) => d.status === 'delivered'), 'the killed rows to be delivered', 120_000)
    const counts = countsAt('/killed')
    expect([...counts.keys()].sort()).toEqual([...queued].sort())
    // each was sent twice: once to the killed instance's hanging request, once after the lease, same webhook-id
    expect([...counts.values()]).toEqual(Array(KILLED_EVENTS).fill(2))
    // the killed attempt was never recorded: one logged attempt each, the one that succeeded
    expect((await deliveries(third, endpointId)).map((d) => d.log.length)).toEqual(Array(KILLED_EVENTS).fill(1))
  }, TEST_TIMEOUT_MS)

  it('refills the slots a finished delivery frees at once: one slot delivers a whole backlog long before the next poll', async () => {
    // the events are queued by an instance without the worker, so only the second one sends
    const queuer = await startIam({ config: { ...CONFIG, webhooks: { ...CONFIG.webhooks, worker: false } }, env: { IAM_TEST_ROUTES: '1' } })
    others.push(queuer)
    const owner = await signupUser(queuer, { client: { ip: '203.0.113.242' } })
    const granted = await fetch(`${queuer.url}/__test/platform-admin`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: owner.email, admin: true }) })
    expect(granted.status).toBe(200)
    const tests = await addEndpoint(queuer, '/refill', ['user.deleted'], owner)
    const queued = await queueTests(queuer, tests, REFILL_EVENTS, owner)
    // one account's sign-ins: each waits for the one before it at this endpoint (features/webhooks/deliver.ts)
    const signIns = await addEndpoint(queuer, '/refill-account', ['session.created'], owner)
    for (let i = 0; i < REFILL_SIGN_INS; i++) await loginUser(queuer, owner.email, owner.password, owner)
    const inOrder = (await deliveries(queuer, signIns, owner)).map((d) => d.msgId).reverse()
    expect(inOrder).toHaveLength(REFILL_SIGN_INS)

    const worker = await startIam({
      config: { ...CONFIG, webhooks: { ...CONFIG.webhooks, batch: 1, pollMs: REFILL_POLL_MS }, service: { ...PROXY_CONFIG.service, dataDir: queuer.dataDir } },
      share: queuer.share,
    })
    others.push(worker)
    // its first poll runs at its start and takes one delivery; the next is a minute away
    await waitUntil(
      () => countsAt('/refill').size === REFILL_EVENTS && countsAt('/refill-account').size === REFILL_SIGN_INS,
      `all ${REFILL_EVENTS + REFILL_SIGN_INS} deliveries before the second poll`,
      REFILL_DEADLINE_MS,
    )
    const counts = countsAt('/refill')
    expect([...counts.keys()].sort()).toEqual([...queued].sort())
    expect([...counts.values(), ...countsAt('/refill-account').values()].filter((n) => n !== 1)).toEqual([])
    expect(hooks.at('/refill-account').map((r) => r.headers['webhook-id'])).toEqual(inOrder)
  }, TEST_TIMEOUT_MS)
})
