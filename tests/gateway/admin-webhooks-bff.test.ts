/**
 * The admin console's webhook BFF routes (server/api/admin/webhooks/**) against the real IAM with
 * webhooks on and a receiver of the test's own on 127.0.0.2 (the one loopback address this IAM's
 * `webhooks.allowAddresses` and `webhooks.organizationAllowAddresses` open): add an endpoint (its secret in that answer only), edit it
 * (the IAM's PUT behind a POST), send a test event, read the delivery log, send a failed delivery
 * again, send a time range again, rotate the secret, remove it; a URL the IAM refuses keeps its code.
 * And an organization's own routes (server/api/orgs/[orgId]/webhooks/**), for its owners alone.
 */
// store-independent: the gateway keeps no store of its own; delivery, its claims and its log run on both stores in tests/iam/webhooks.test.ts and webhooks-postgres.test.ts
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { signRequestV2 } from '../../iam/client/hmac'
import { waitUntil } from '../helpers/wait'
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver'
import { browserLike, freshEmail, hmac, PASSWORD, setupStack } from './bff-harness'

const RECEIVER_HOST = '127.0.0.2'
let hooks: WebhookReceiver
beforeAll(async () => {
  hooks = await startWebhookReceiver(RECEIVER_HOST)
})
afterAll(async () => {
  hooks?.releaseHanging()
  await hooks?.stop()
})

// one try and no retry: a receiver's 500 ends the delivery dead at once, for "send again"
const stack = await setupStack(
  { webhooks: { enabled: true, pollMs: 50, retryScheduleMs: [], jitter: 0, timeoutMs: 1000, allowHttp: true, allowAddresses: [`${RECEIVER_HOST}/32`], organizationAllowAddresses: [`${RECEIVER_HOST}/32`], disableAfterFailures: 1000 } },
  {},
  { iam: { IAM_TEST_ROUTES: '1' } },
)

type Browser = ReturnType<typeof browserLike>

async function administrator(): Promise<Browser> {
  const email = freshEmail('hook-admin')
  const b = browserLike(stack.gateway.url)
  const res = await b.call('/api/auth/signup', { method: 'POST', body: { email, password: PASSWORD, confirmedPassword: PASSWORD, name: 'Hook admin', termsConsent: 'on' } })
  expect(res.status, res.text).toBe(201)
  const body = JSON.stringify({ email, admin: true })
  const granted = await fetch(`${stack.iam.url}/__test/platform-admin`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...signRequestV2({ ...hmac, method: 'POST', url: '/__test/platform-admin', body }) },
    body,
  })
  expect(granted.status, await granted.text()).toBe(200)
  return b
}

interface Delivery { id: number; eventType: string; status: string; attempts: number }
async function deliveriesOf(b: Browser, id: string): Promise<Delivery[]> {
  const res = await b.call(`/api/admin/webhooks/${id}/deliveries?limit=20`)
  expect(res.status, res.text).toBe(200)
  return (res.json.data as { deliveries: Delivery[] }).deliveries
}

describe('webhooks through the BFF', () => {
  it('adds an endpoint with its secret once, lists it, edits it, and removes it', async () => {
    const b = await administrator()
    const created = await b.call('/api/admin/webhooks', { method: 'POST', body: { url: `${hooks.base}/hook/a`, eventTypes: ['user.created'], description: 'CRM' } })
    expect(created.status, created.text).toBe(200)
    const { endpoint, secret } = created.json.data as { endpoint: { id: string }; secret: string }
    expect(secret).toMatch(/^whsec_/)

    const list = await b.call('/api/admin/webhooks')
    expect(list.status, list.text).toBe(200)
    const listed = (list.json.data as { endpoints: Array<Record<string, unknown>> }).endpoints.find((e) => e.id === endpoint.id)
    expect(listed).toMatchObject({ url: `${hooks.base}/hook/a`, eventTypes: ['user.created'], enabled: true, description: 'CRM' })
    // the list never carries a secret
    expect(list.text).not.toContain(secret)

    const updated = await b.call(`/api/admin/webhooks/${endpoint.id}/update`, { method: 'POST', body: { url: `${hooks.base}/hook/a`, eventTypes: ['user.*', 'session.created'], enabled: false } })
    expect(updated.status, updated.text).toBe(200)
    expect(updated.json.data).toMatchObject({ endpoint: { eventTypes: ['user.*', 'session.created'], enabled: false, disabledReason: 'admin' } })

    const deleted = await b.call(`/api/admin/webhooks/${endpoint.id}/delete`, { method: 'POST' })
    expect(deleted.status, deleted.text).toBe(200)
    const again = await b.call(`/api/admin/webhooks/${endpoint.id}/delete`, { method: 'POST' })
    expect(again.status).toBe(404)
    expect(again.json.code).toBe('webhook_not_found')
  })

  it('sends a test event, shows it failed in the log, sends it again, and rotates the secret', async () => {
    const b = await administrator()
    hooks.scripts.set('/hook/b', [{ status: 500 }, { status: 200 }])
    const created = await b.call('/api/admin/webhooks', { method: 'POST', body: { url: `${hooks.base}/hook/b`, eventTypes: ['*'] } })
    const id = (created.json.data as { endpoint: { id: string } }).endpoint.id

    const test = await b.call(`/api/admin/webhooks/${id}/test`, { method: 'POST' })
    expect(test.status, test.text).toBe(200)
    const deliveryId = (test.json.data as { deliveryId: number }).deliveryId
    await waitUntil(async () => (await deliveriesOf(b, id)).some((d) => d.id === deliveryId && d.status === 'dead'), 'the test event to end failed')

    const replayed = await b.call(`/api/admin/webhooks/${id}/deliveries/${deliveryId}/replay`, { method: 'POST' })
    expect(replayed.status, replayed.text).toBe(200)
    await waitUntil(async () => (await deliveriesOf(b, id)).some((d) => d.id === deliveryId && d.status === 'delivered'), 'the test event sent again to be delivered')
    expect(hooks.at('/hook/b').filter((r) => r.body.includes('webhook.test'))).toHaveLength(2)

    const rotated = await b.call(`/api/admin/webhooks/${id}/rotate-secret`, { method: 'POST' })
    expect(rotated.status, rotated.text).toBe(200)
    expect(rotated.json.data).toMatchObject({ secret: expect.stringMatching(/^whsec_/), endpoint: { id, previousSecretUntil: expect.any(String) } })
  })

  it('sends the failed deliveries of a time range again and answers how many, refusing an end before the start', async () => {
    const b = await administrator()
    hooks.scripts.set('/hook/range', [{ status: 500 }, { status: 200 }])
    const created = await b.call('/api/admin/webhooks', { method: 'POST', body: { url: `${hooks.base}/hook/range`, eventTypes: ['*'] } })
    const id = (created.json.data as { endpoint: { id: string } }).endpoint.id
    const test = await b.call(`/api/admin/webhooks/${id}/test`, { method: 'POST' })
    const deliveryId = (test.json.data as { deliveryId: number }).deliveryId
    await waitUntil(async () => (await deliveriesOf(b, id)).some((d) => d.id === deliveryId && d.status === 'dead'), 'the test event to end failed')

    const since = new Date(Date.now() - 3_600_000).toISOString()
    const backwards = await b.call(`/api/admin/webhooks/${id}/replay`, { method: 'POST', body: { since, until: new Date(Date.now() - 7_200_000).toISOString() } })
    expect(backwards.status, backwards.text).toBe(400)
    expect(backwards.json).toMatchObject({ code: 'validation_failed', fields: { until: expect.any(String) } })

    const replayed = await b.call(`/api/admin/webhooks/${id}/replay`, { method: 'POST', body: { since } })
    expect(replayed.status, replayed.text).toBe(200)
    expect(replayed.json.data).toEqual({ replayed: 1 })
    await waitUntil(async () => (await deliveriesOf(b, id)).some((d) => d.id === deliveryId && d.status === 'delivered'), 'the range sent again to be delivered')
    expect(hooks.at('/hook/range').filter((r) => r.body.includes('webhook.test'))).toHaveLength(2)
  })

  it('relays the refusal of a URL deliveries may not reach, and refuses ids and filters the IAM would refuse before calling it', async () => {
    const b = await administrator()
    const refused = await b.call('/api/admin/webhooks', { method: 'POST', body: { url: 'http://10.0.0.1/hook', eventTypes: ['user.created'] } })
    expect(refused.status).toBe(400)
    expect(refused.json.code).toBe('webhook_url_refused')
    for (const path of ['/api/admin/webhooks/not-an-id/deliveries', '/api/admin/webhooks/ep_AAAAAAAAAAAAAAAAAAAAAA/deliveries?status=lost']) {
      const res = await b.call(path)
      expect(res.status, path).toBe(400)
      expect(res.json.code, path).toBe('validation_failed')
    }
    const badDelivery = await b.call('/api/admin/webhooks/ep_AAAAAAAAAAAAAAAAAAAAAA/deliveries/0/replay', { method: 'POST' })
    expect(badDelivery.status).toBe(400)
  })
})

describe("an organization's webhooks through the BFF", () => {
  async function signedUp(tag: string): Promise<Browser> {
    const b = browserLike(stack.gateway.url)
    const res = await b.call('/api/auth/signup', { method: 'POST', body: { email: freshEmail(tag), password: PASSWORD, confirmedPassword: PASSWORD, name: `${tag} user`, termsConsent: 'on' } })
    expect(res.status, res.text).toBe(201)
    return b
  }

  it("lets the owner add, list, test, edit and remove an endpoint of the organization's own events, and no one else", async () => {
    const owner = await signedUp('org-hook-owner')
    const org = await owner.call('/api/orgs', { method: 'POST', body: { name: 'Hook Org', slug: `hook-org-${Date.now().toString(36)}` } })
    expect(org.status, org.text).toBe(201)
    const base = `/api/orgs/${(org.json.data as { org: { id: string } }).org.id}/webhooks`

    // a type about accounts is not the organization's to hear: refused before the IAM is asked
    const foreign = await owner.call(base, { method: 'POST', body: { url: `${hooks.base}/hook/org`, eventTypes: ['user.created'] } })
    expect(foreign.status, foreign.text).toBe(400)
    expect(foreign.json.code).toBe('validation_failed')

    const created = await owner.call(base, { method: 'POST', body: { url: `${hooks.base}/hook/org`, eventTypes: ['membership.*'] } })
    expect(created.status, created.text).toBe(200)
    const { endpoint, secret } = created.json.data as { endpoint: { id: string }; secret: string }
    expect(secret).toMatch(/^whsec_/)
    const list = await owner.call(base)
    expect(list.status, list.text).toBe(200)
    expect((list.json.data as { endpoints: Array<{ id: string }> }).endpoints.map((e) => e.id)).toEqual([endpoint.id])

    expect((await owner.call(`${base}/${endpoint.id}/test`, { method: 'POST' })).status).toBe(200)
    const log = await owner.call(`${base}/${endpoint.id}/deliveries?limit=5`)
    expect(log.status, log.text).toBe(200)
    const updated = await owner.call(`${base}/${endpoint.id}/update`, { method: 'POST', body: { url: `${hooks.base}/hook/org`, eventTypes: ['*'] } })
    expect(updated.status, updated.text).toBe(200)
    expect(updated.json.data).toMatchObject({ endpoint: { eventTypes: ['*'] } })

    // someone who is no member reads it as no such organization; ids the IAM would refuse never reach it
    const stranger = await signedUp('org-hook-stranger')
    const refused = await stranger.call(base)
    expect(refused.status).toBe(404)
    expect(refused.json.code).toBe('org_not_found')
    for (const path of ['/api/orgs/not-an-id/webhooks', `${base}/not-an-id/deliveries`, `${base}/${endpoint.id}/deliveries?limit=500`]) {
      const res = await owner.call(path)
      expect(res.status, path).toBe(400)
      expect(res.json.code, path).toBe('validation_failed')
    }

    expect((await owner.call(`${base}/${endpoint.id}/delete`, { method: 'POST' })).status).toBe(200)
    expect((await owner.call(base)).json.data).toMatchObject({ endpoints: [] })
  })
})
