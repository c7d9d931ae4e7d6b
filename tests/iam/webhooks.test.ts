/**
 * Signed webhooks (features/webhooks, docs/webhooks.md) against the built IAM: a receiver of the
 * test's own on 127.0.0.2 (the one loopback address this IAM's `webhooks.allowAddresses` opens)
 * verifies every delivery with the `standardwebhooks` package, never with the IAM's code. The
 * schedule's waits are 100 ms here, so retries arrive within the test.
 */
import { Webhook } from 'standardwebhooks'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loginUser, PROXY_CONFIG, signupUser, type Session } from '../helpers/accounts'
import { advanceClock, CLOCK_ENV } from '../helpers/clock'
import { mailTo, signupConfirmed } from '../helpers/confirm-email'
import { recipients, startSmtp, type SmtpCapture } from '../helpers/smtp'
import { startIam, type IamServer, type Json } from '../helpers/iam-server'
import { moved, scrapeMetrics } from '../helpers/prometheus'
import { waitUntil } from '../helpers/wait'
import { startWebhookReceiver, type Answer, type WebhookReceiver } from '../helpers/webhook-receiver'
import { authed, WIDE_LOGIN } from './second-factor-http'

const START_TIMEOUT_MS = 180_000
const RECEIVER_HOST = '127.0.0.2'

let hooks: WebhookReceiver

let iam: IamServer
let admin: Session

async function json(res: Response): Promise<Json> {
  const text = await res.text()
  try {
    return JSON.parse(text) as Json
  } catch {
    throw new Error(`not JSON (${res.status}): ${text}`)
  }
}

const asAdmin = (method: string, path: string, body?: unknown) => authed(iam, admin, method, path, body)

let pathCounter = 0
/** A new endpoint at a path of its own on the receiver; its secret is registered for verification. */
async function addEndpoint(eventTypes: string[], script: Answer[] = [{ status: 200 }]): Promise<{ id: string; path: string; secret: string }> {
  const path = `/hook/${++pathCounter}`
  hooks.scripts.set(path, script)
  const res = await asAdmin('POST', '/admin/webhooks', { url: `${hooks.base}${path}`, eventTypes, description: `test ${pathCounter}` })
  const body = await json(res)
  expect(res.status, JSON.stringify(body)).toBe(200)
  const data = body.data as { endpoint: { id: string }; secret: string }
  expect(data.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/)
  hooks.secrets.set(path, [data.secret])
  return { id: data.endpoint.id, path, secret: data.secret }
}

const at = (path: string) => hooks.at(path)

async function deliveriesOf(endpointId: string): Promise<Array<Json & { log: Json[] }>> {
  const res = await asAdmin('GET', `/admin/webhooks/${endpointId}/deliveries`)
  const body = await json(res)
  expect(res.status, JSON.stringify(body)).toBe(200)
  return (body.data as { deliveries: Array<Json & { log: Json[] }> }).deliveries
}

async function endpointOf(id: string): Promise<Json> {
  const res = await asAdmin('GET', `/admin/webhooks/${id}`)
  const body = await json(res)
  expect(res.status, JSON.stringify(body)).toBe(200)
  return (body.data as { endpoint: Json }).endpoint
}

async function sendTest(id: string): Promise<string> {
  const res = await asAdmin('POST', `/admin/webhooks/${id}/test`)
  const body = await json(res)
  expect(res.status, JSON.stringify(body)).toBe(200)
  return (body.data as { msgId: string }).msgId
}

async function publicIdOn(server: IamServer, by: Session, email: string): Promise<string> {
  const body = await json(await authed(server, by, 'GET', `/admin/users?q=${encodeURIComponent(email)}`))
  return (body.data as { users: Array<{ id: string; email: string }> }).users.find((u) => u.email === email)!.id
}
const publicIdOf = (email: string) => publicIdOn(iam, admin, email)

/**
 * The delivery settings of this file's IAMs: quick polls and retries, the test receiver allowed to
 * both kinds of endpoint, and one more loopback address to the platform's only.
 */
const PLATFORM_ONLY_HOST = '127.0.0.4'
const WEBHOOKS = {
  enabled: true,
  pollMs: 50,
  retryScheduleMs: [100, 100, 100],
  jitter: 0,
  timeoutMs: 1000,
  allowHttp: true,
  allowAddresses: [`${RECEIVER_HOST}/32`, `${PLATFORM_ONLY_HOST}/32`],
  organizationAllowAddresses: [`${RECEIVER_HOST}/32`],
}

/** A new account made platform administrator through the test route. */
async function platformAdminOf(server: IamServer, ip: string): Promise<Session> {
  const made = await signupUser(server, { client: { ip } })
  const res = await fetch(`${server.url}/__test/platform-admin`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: made.email, admin: true }) })
  expect(res.status).toBe(200)
  return made
}

beforeAll(async () => {
  hooks = await startWebhookReceiver(RECEIVER_HOST)
  iam = await startIam({
    config: {
      ...PROXY_CONFIG,
      ...WIDE_LOGIN,
      service: { ...PROXY_CONFIG.service, metrics: { allow: ['127.0.0.1', '::1'] } },
      webhooks: { ...WEBHOOKS, disableAfterFailures: 1000 },
    },
    env: { IAM_TEST_ROUTES: '1' },
  })
  admin = await platformAdminOf(iam, '203.0.113.231')
}, START_TIMEOUT_MS)

afterAll(async () => {
  hooks?.releaseHanging()
  await iam?.stop()
  await hooks?.stop()
})

describe('events from changes', () => {
  it('delivers user.created for a sign-up, signed so that Webhook.verify accepts it, with the account public id and no secret', async () => {
    const hook = await addEndpoint(['user.*'])
    const user = await signupUser(iam, { client: { ip: '203.0.113.232' } })
    const publicId = await publicIdOf(user.email)
    await waitUntil(() => at(hook.path).some((r) => (r.verified as { type?: string } | null)?.type === 'user.created'), 'user.created at the receiver')
    const delivery = at(hook.path).find((r) => (r.verified as { type?: string } | null)?.type === 'user.created')!
    expect(delivery.error).toBeNull()
    const payload = delivery.verified as { type: string; timestamp: string; data: Json }
    expect(payload.data.user).toEqual({ id: publicId })
    expect(Object.keys(payload.data).sort()).toEqual(['method', 'sessionId', 'user'])
    expect(Number.isNaN(Date.parse(payload.timestamp))).toBe(false)
    expect(delivery.body).not.toContain(user.email)
    expect(delivery.body).not.toContain(user.password)
    expect(delivery.headers['webhook-id']).toMatch(/^msg_[0-9a-f]{32}$/)
  })

  it('sends nothing for an event type the endpoint does not subscribe to', async () => {
    const hook = await addEndpoint(['organization.*'])
    const other = await addEndpoint(['user.created'])
    await signupUser(iam, { client: { ip: '203.0.113.233' } })
    await waitUntil(() => at(other.path).length > 0, 'the user.created endpoint to be called')
    expect(await deliveriesOf(hook.id)).toEqual([])
  })

  it('queues no event for a change that rolls back after writing its security event, and one for the same change committed', async () => {
    const hook = await addEndpoint(['user.updated'])
    const user = await signupUser(iam, { client: { ip: '203.0.113.234' } })
    const change = (rollback: boolean) =>
      fetch(`${iam.url}/__test/webhook-change`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: user.email, rollback }) }).then(json)
    expect(await change(true)).toEqual({ committed: false })
    expect(await deliveriesOf(hook.id)).toEqual([])
    expect(await change(false)).toEqual({ committed: true })
    await waitUntil(async () => (await deliveriesOf(hook.id)).length === 1, 'the committed change to be queued')
    expect((await deliveriesOf(hook.id))[0]!.eventType).toBe('user.updated')
  })
})

describe('order', () => {
  it('holds a newer event about an account back while an older one to the same endpoint waits for its retry', async () => {
    const hook = await addEndpoint(['user.updated'], [{ status: 500 }, { status: 200 }])
    const user = await signupUser(iam, { client: { ip: '203.0.113.235' } })
    const change = () =>
      fetch(`${iam.url}/__test/webhook-change`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: user.email, rollback: false }) }).then(json)
    await change()
    await waitUntil(() => at(hook.path).length === 1, 'the first attempt of the older event')
    await change()
    await waitUntil(() => at(hook.path).length === 3, 'the retry and the newer event')
    const ids = at(hook.path).map((r) => r.headers['webhook-id'])
    const [older, newer] = (await deliveriesOf(hook.id)).map((d) => d.msgId).reverse()
    expect(ids).toEqual([older, older, newer])
  })
})

describe('what a sign-in costs with an endpoint subscribed', () => {
  // an instance without the worker: the statements counted are the sign-in's alone
  let quiet: IamServer
  beforeAll(async () => {
    quiet = await startIam({
      config: { ...PROXY_CONFIG, ...WIDE_LOGIN, service: { ...PROXY_CONFIG.service, metrics: { allow: ['127.0.0.1', '::1'] } }, webhooks: { ...WEBHOOKS, worker: false } },
      env: { IAM_TEST_ROUTES: '1' },
    })
  }, START_TIMEOUT_MS)
  afterAll(async () => {
    await quiet?.stop()
  })

  it('writes a sign-in with session.created subscribed in the statements of one without: its outbox rows go into the session statement', async () => {
    const manager = await platformAdminOf(quiet, '203.0.113.241')
    const user = await signupUser(quiet, { client: { ip: '203.0.113.242' } })
    const statementsOfLogin = async () => {
      const before = await scrapeMetrics(quiet.url)
      await loginUser(quiet, user.email, user.password, user)
      const after = await scrapeMetrics(quiet.url)
      return Object.fromEntries(['write', 'transaction'].map((kind) => [kind, moved(before, after, 'iam_db_statements_total', { kind })]))
    }
    // a first sign-in of the account does more once (first-seen facts of the device): not counted
    await statementsOfLogin()
    const without = await statementsOfLogin()
    const res = await authed(quiet, manager, 'POST', '/admin/webhooks', { url: `${hooks.base}/hook/quiet`, eventTypes: ['session.created'] })
    expect(res.status).toBe(200)
    const endpointId = ((await json(res)).data as { endpoint: { id: string } }).endpoint.id
    const withEndpoint = await statementsOfLogin()
    expect(withEndpoint).toEqual(without)
    expect(withEndpoint.transaction).toBe(0)
    // and the sign-in's event is queued for the endpoint, about the account
    const listed = await json(await authed(quiet, manager, 'GET', `/admin/webhooks/${endpointId}/deliveries`))
    const deliveries = (listed.data as { deliveries: Array<{ eventType: string; status: string; payload: { data: Json } }> }).deliveries
    expect(deliveries.map((d) => [d.eventType, d.status])).toEqual([['session.created', 'pending']])
    expect(deliveries[0]!.payload.data.user).toEqual({ id: await publicIdOn(quiet, manager, user.email) })
  })
})

describe('retries and failures', () => {
  it('tries a delivery that got 500 again, with the same webhook-id, until it gets 200', async () => {
    const hook = await addEndpoint(['user.deleted'], [{ status: 500, body: 'boom' }, { status: 200 }])
    const msgId = await sendTest(hook.id)
    await waitUntil(() => at(hook.path).length === 2, 'the retry')
    expect(at(hook.path).map((r) => r.headers['webhook-id'])).toEqual([msgId, msgId])
    expect(at(hook.path).every((r) => r.error === null)).toBe(true)
    await waitUntil(async () => (await deliveriesOf(hook.id))[0]?.status === 'delivered', 'the delivery to be marked delivered')
    const [delivery] = await deliveriesOf(hook.id)
    expect(delivery!.log.map((a) => a.status)).toEqual([500, 200])
    expect(delivery!.log[0]!.responseExcerpt).toBe('boom')
    expect((await endpointOf(hook.id)).stats).toMatchObject({ attempts24h: 2, succeeded24h: 1, successRate24h: 0.5 })
  })

  it('switches the endpoint off when it answers 410 Gone', async () => {
    const hook = await addEndpoint(['user.deleted'], [{ status: 410 }])
    await sendTest(hook.id)
    await waitUntil(async () => (await endpointOf(hook.id)).enabled === false, 'the endpoint to be disabled')
    expect(await endpointOf(hook.id)).toMatchObject({ enabled: false, disabledReason: 'gone' })
  })

  it('waits as long as Retry-After asks when that is longer than the schedule', async () => {
    const hook = await addEndpoint(['user.deleted'], [{ status: 503, headers: { 'retry-after': '30' } }])
    await sendTest(hook.id)
    await waitUntil(async () => (await deliveriesOf(hook.id))[0]?.log.length === 1, 'the first attempt to be logged')
    const [delivery] = await deliveriesOf(hook.id)
    expect(delivery!.status).toBe('pending')
    const waitMs = Date.parse(delivery!.nextAttemptAt as string) - Date.parse(delivery!.log[0]!.at as string)
    expect(waitMs).toBeGreaterThanOrEqual(30_000)
    // the endpoint's figures count the waiting delivery once, among the day's attempts
    expect((await endpointOf(hook.id)).stats).toMatchObject({ attempts24h: 1, succeeded24h: 0, pending: 1, dead: 0 })
  })

  it('gives up on a receiver that never answers after the deadline, logged as a timeout', async () => {
    const hook = await addEndpoint(['user.deleted'], ['hang'])
    await sendTest(hook.id)
    await waitUntil(async () => (await deliveriesOf(hook.id))[0]?.log.length === 1, 'the timed-out attempt to be logged')
    const [delivery] = await deliveriesOf(hook.id)
    expect(delivery!.log[0]).toMatchObject({ status: null, error: 'timeout' })
  })

  it('ends a delivery as dead once the schedule is spent, and sends it again on replay', async () => {
    const hook = await addEndpoint(['user.deleted'], [{ status: 500 }, { status: 500 }, { status: 500 }, { status: 500 }, { status: 200 }])
    await sendTest(hook.id)
    await waitUntil(async () => (await deliveriesOf(hook.id))[0]?.status === 'dead', 'the delivery to be dead')
    const [dead] = await deliveriesOf(hook.id)
    expect(dead!.log).toHaveLength(4)
    expect((await endpointOf(hook.id)).stats).toMatchObject({ attempts24h: 4, succeeded24h: 0, pending: 0, dead: 1 })
    const res = await asAdmin('POST', `/admin/webhooks/${hook.id}/deliveries/${dead!.id}/replay`)
    expect(res.status, await res.clone().text()).toBe(200)
    await waitUntil(async () => (await deliveriesOf(hook.id))[0]?.status === 'delivered', 'the replayed delivery')
    expect(at(hook.path).map((r) => r.headers['webhook-id'])).toEqual(Array(5).fill(dead!.msgId))
    // the replay's delivering attempt is on the row, the four before it in the log: each counted once
    expect((await endpointOf(hook.id)).stats).toMatchObject({ attempts24h: 5, succeeded24h: 1, pending: 0, dead: 0 })
  })
})

describe('secrets', () => {
  it('signs with the new and the previous secret while a rotation overlaps, each accepted by Webhook.verify', async () => {
    const hook = await addEndpoint(['user.deleted'])
    const res = await asAdmin('POST', `/admin/webhooks/${hook.id}/rotate-secret`)
    const body = await json(res)
    expect(res.status, JSON.stringify(body)).toBe(200)
    const data = body.data as { secret: string; endpoint: { previousSecretUntil: string | null } }
    expect(data.secret).not.toBe(hook.secret)
    expect(data.endpoint.previousSecretUntil).toEqual(expect.any(String))
    await sendTest(hook.id)
    await waitUntil(() => at(hook.path).length === 1, 'the test event')
    const [delivery] = at(hook.path)
    expect((delivery!.headers['webhook-signature'] as string).split(' ')).toHaveLength(2)
    for (const secret of [hook.secret, data.secret]) {
      const flat = Object.fromEntries(Object.entries(delivery!.headers).filter(([, v]) => typeof v === 'string')) as Record<string, string>
      expect((new Webhook(secret).verify(delivery!.body, flat) as { type: string }).type).toBe('webhook.test')
    }
  })

  it('shows the secret only when it is made: listing and reading an endpoint never carry it', async () => {
    const hook = await addEndpoint(['user.*'])
    const listed = await (await asAdmin('GET', '/admin/webhooks')).text()
    const one = await (await asAdmin('GET', `/admin/webhooks/${hook.id}`)).text()
    expect(listed).not.toContain(hook.secret.slice(6))
    expect(one).not.toContain(hook.secret.slice(6))
  })
})

describe('where deliveries may go', () => {
  const refused = async (url: string) => {
    const res = await asAdmin('POST', '/admin/webhooks', { url, eventTypes: ['*'] })
    const body = await json(res)
    expect(res.status, `${url}: ${JSON.stringify(body)}`).toBe(400)
    expect(body.code).toBe('webhook_url_refused')
  }

  it('refuses an endpoint at a loopback, private, link-local or unspecified address outside the allowed range', async () => {
    for (const url of ['http://127.0.0.1/', 'http://10.0.0.1/', 'http://192.168.1.1/', 'http://169.254.169.254/latest', 'http://[::1]/', 'http://0.0.0.0/', 'http://2130706433/']) {
      await refused(url)
    }
  })

  it('refuses a name that resolves to a refused address, and a URL with credentials or another scheme', async () => {
    await refused(`http://localhost:${new URL(hooks.base).port}/`)
    await refused(`http://user:pass@${RECEIVER_HOST}/`)
    await refused(`ftp://${RECEIVER_HOST}/`)
  })

  it('refuses an event type outside the catalogue', async () => {
    const res = await asAdmin('POST', '/admin/webhooks', { url: `${hooks.base}/x`, eventTypes: ['user.exploded'] })
    const body = await json(res)
    expect(res.status).toBe(400)
    expect(body.code).toBe('validation_failed')
  })

  it('says what was wrong with each refused field as a code beside its sentence: one left out, too few, too long, a control character', async () => {
    const res = await asAdmin('POST', '/admin/webhooks', { eventTypes: [], description: 'x'.repeat(501) })
    const body = await json(res)
    expect(res.status).toBe(400)
    expect(body).toMatchObject({ code: 'validation_failed', fields: { url: expect.any(String), eventTypes: expect.any(String), description: expect.any(String) } })
    expect(body.fieldIssues).toEqual({ url: { code: 'required' }, eventTypes: { code: 'too_few', limit: 1 }, description: { code: 'too_long', limit: 500 } })
    // a control character: refused by the body rule of every JSON route or by the field's schema, invalid either way
    const unsafe = await json(await asAdmin('POST', '/admin/webhooks', { url: `${hooks.base}/x`, eventTypes: ['*'], description: 'a\u0007b' }))
    expect(unsafe).toMatchObject({ code: 'validation_failed', fieldIssues: { description: { code: 'invalid' } } })
  })

  it('refuses a URL longer than the limit once written out (each character outside ASCII as several) with 400, not a failed write', async () => {
    const res = await asAdmin('POST', '/admin/webhooks', { url: `${hooks.base}/${'€'.repeat(300)}`, eventTypes: ['*'] })
    const body = await json(res)
    expect(res.status, JSON.stringify(body)).toBe(400)
    expect(body.code).toBe('webhook_url_refused')
    expect((body.fields as { url: string }).url).toMatch(/at most 2048 characters once written out/)
  })

  it('refuses a replay range outside the years the database keeps (year 0, an offset past 9999) with 400', async () => {
    const hook = await addEndpoint(['user.deleted'])
    for (const range of [{ since: '0000-01-01T00:00:00Z' }, { since: '2026-01-01T00:00:00Z', until: '9999-12-31T23:59:59-23:59' }, { since: '1969-12-31T23:59:59Z' }]) {
      const res = await asAdmin('POST', `/admin/webhooks/${hook.id}/replay`, range)
      const body = await json(res)
      expect(res.status, `${JSON.stringify(range)}: ${JSON.stringify(body)}`).toBe(400)
      expect(body.code).toBe('validation_failed')
    }
  })

  it('does not follow a redirect: the 3xx is a failed attempt and its target is never called', async () => {
    const hook = await addEndpoint(['user.deleted'], [{ status: 302, headers: { location: `${hooks.base}/elsewhere` } }])
    await sendTest(hook.id)
    await waitUntil(async () => (await deliveriesOf(hook.id))[0]?.log.length === 1, 'the redirected attempt')
    const [delivery] = await deliveriesOf(hook.id)
    expect(delivery!.log[0]).toMatchObject({ status: 302, error: 'redirect_not_followed' })
    expect(at('/elsewhere')).toEqual([])
  })
})

describe('metrics', () => {
  it('counts delivery outcomes and shows the queue on /metrics', async () => {
    const text = await scrapeMetrics(iam.url)
    expect(text.value('iam_webhook_deliveries_total', { outcome: 'delivered' })).toBeGreaterThan(0)
    expect(text.value('iam_webhook_deliveries_total', { outcome: 'gone' })).toBeGreaterThan(0)
    expect(text.types.get('iam_webhook_queue_pending')).toBe('gauge')
    // the Retry-After and hanging receivers keep deliveries waiting
    expect(text.value('iam_webhook_queue_pending')).toBeGreaterThan(0)
    expect(text.value('iam_webhook_oldest_pending_seconds')).toBeGreaterThan(0)
  })

  it('keeps readiness green while receivers fail or hang', async () => {
    expect((await fetch(`${iam.url}/health/ready`)).status).toBe(200)
  })
})

describe("an organization's endpoints", () => {
  let owner: Session
  let colleague: Session
  let org: string
  let otherOrg: string
  const asOwner = (method: string, path: string, body?: unknown) => authed(iam, owner, method, path, body)

  async function newOrg(by: Session, slug: string): Promise<string> {
    const res = await authed(iam, by, 'POST', '/orgs', { name: `Hooks ${slug}`, slug: `${slug}-${Date.now().toString(36)}` })
    const body = await json(res)
    expect(res.status, JSON.stringify(body)).toBe(201)
    return (body.data as { org: { id: string } }).org.id
  }

  /** `invitee` joins `orgId` as `role`, by the link mailed to them. */
  async function join(orgId: string, invitee: Session, role: string): Promise<void> {
    expect((await asOwner('POST', `/orgs/${orgId}/invitations`, { email: invitee.email, role })).status).toBe(201)
    const mail = await mailTo({ dataDir: iam.dataDir }, invitee.email, (m) => /invited you to join/.test(m.text ?? ''))
    const token = /[?&]token=([A-Za-z0-9_-]{43})/.exec(mail.text ?? '')![1]!
    expect((await authed(iam, invitee, 'POST', '/orgs/invitations/accept', { token })).status).toBe(200)
  }

  async function addOrgEndpoint(orgId: string, eventTypes: string[]): Promise<{ id: string; path: string }> {
    const path = `/org-hook/${++pathCounter}`
    hooks.scripts.set(path, [{ status: 200 }])
    const res = await asOwner('POST', `/orgs/${orgId}/webhooks`, { url: `${hooks.base}${path}`, eventTypes })
    const body = await json(res)
    expect(res.status, JSON.stringify(body)).toBe(200)
    const data = body.data as { endpoint: { id: string }; secret: string }
    hooks.secrets.set(path, [data.secret])
    return { id: data.endpoint.id, path }
  }

  const typesAt = (path: string) => at(path).map((r) => (r.verified as { type: string; data: { orgId?: string } }) ?? null)

  beforeAll(async () => {
    owner = await signupUser(iam, { client: { ip: '203.0.113.240' } })
    // accepting an invitation takes a confirmed address
    colleague = await signupConfirmed(iam, { dataDir: iam.dataDir }, { client: { ip: '203.0.113.241' } })
    org = await newOrg(owner, 'hooks-a')
    otherOrg = await newOrg(owner, 'hooks-b')
    await join(org, colleague, 'admin')
  })

  it("delivers the organization's own membership and invitation events to its endpoint, and no other organization's", async () => {
    const hook = await addOrgEndpoint(org, ['*'])
    const platform = await addEndpoint(['invitation.created'])
    const invitee = `invitee-${Date.now().toString(36)}@example.com`
    expect((await asOwner('POST', `/orgs/${otherOrg}/invitations`, { email: `elsewhere-${invitee}`, role: 'member' })).status).toBe(201)
    expect((await asOwner('POST', `/orgs/${org}/invitations`, { email: invitee, role: 'member' })).status).toBe(201)
    // the platform's endpoint hears both; by then the organization's has had its chance at both
    await waitUntil(() => at(platform.path).length >= 2, "both invitations at the platform's endpoint")
    await waitUntil(() => at(hook.path).length >= 1, "the organization's invitation at its endpoint")
    const heard = typesAt(hook.path)
    expect(at(hook.path).map((r) => r.error)).toEqual([null])
    expect(heard).toEqual([expect.objectContaining({ type: 'invitation.created', data: expect.objectContaining({ orgId: org }) })])
  })

  it("hears nothing about its members' own accounts: an organization endpoint may subscribe only to organization, membership and invitation events", async () => {
    for (const eventTypes of [['user.*'], ['session.created'], ['membership.*', 'factor.added']]) {
      const res = await asOwner('POST', `/orgs/${org}/webhooks`, { url: `${hooks.base}/org-hook/refused`, eventTypes })
      const body = await json(res)
      expect(res.status, JSON.stringify(body)).toBe(400)
      expect(body.code).toBe('validation_failed')
    }
    const hook = await addOrgEndpoint(org, ['*'])
    const platform = await addEndpoint(['user.updated'])
    expect((await asOwner('POST', '/auth/profile', { name: 'Owner Renamed' })).status).toBe(200)
    await waitUntil(() => at(platform.path).length >= 1, "user.updated at the platform's endpoint")
    expect(await json(await asOwner('GET', `/orgs/${org}/webhooks/${hook.id}/deliveries`))).toMatchObject({ data: { deliveries: [] } })
  })

  it("may not be at an address the operator opened to the platform's endpoints only, on creation or on a change", async () => {
    const url = `http://${PLATFORM_ONLY_HOST}:${new URL(hooks.base).port}/org-hook/inside`
    const created = await asOwner('POST', `/orgs/${org}/webhooks`, { url, eventTypes: ['*'] })
    const body = await json(created)
    expect(created.status, JSON.stringify(body)).toBe(400)
    expect(body.code).toBe('webhook_url_refused')
    const hook = await addOrgEndpoint(org, ['membership.*'])
    const changed = await asOwner('PUT', `/orgs/${org}/webhooks/${hook.id}`, { url, eventTypes: ['*'] })
    expect(changed.status).toBe(400)
    expect((await json(changed)).code).toBe('webhook_url_refused')
    // the same address is the platform's to use
    const platform = await asAdmin('POST', '/admin/webhooks', { url, eventTypes: ['user.deleted'] })
    expect(platform.status).toBe(200)
  })

  it("keeps each side's endpoints to itself: the administrators' routes and another organization's do not find them", async () => {
    const hook = await addOrgEndpoint(org, ['membership.*'])
    const platform = await addEndpoint(['user.banned'])
    const listed = (await json(await asAdmin('GET', '/admin/webhooks'))).data as { endpoints: Array<{ id: string }> }
    expect(listed.endpoints.map((e) => e.id)).toContain(platform.id)
    expect(listed.endpoints.map((e) => e.id)).not.toContain(hook.id)
    for (const [method, path] of [
      ['GET', `/admin/webhooks/${hook.id}`],
      ['POST', `/admin/webhooks/${hook.id}/rotate-secret`],
      ['DELETE', `/admin/webhooks/${hook.id}`],
      ['GET', `/orgs/${otherOrg}/webhooks/${hook.id}`],
      ['POST', `/orgs/${otherOrg}/webhooks/${hook.id}/test`],
      ['DELETE', `/orgs/${otherOrg}/webhooks/${hook.id}`],
      ['GET', `/orgs/${org}/webhooks/${platform.id}`],
      ['DELETE', `/orgs/${org}/webhooks/${platform.id}`],
    ] as const) {
      const res = await (path.startsWith('/admin') ? asAdmin(method, path) : asOwner(method, path))
      const body = await json(res)
      expect(`${method} ${path}: ${res.status} ${String(body.code)}`).toBe(`${method} ${path}: 404 webhook_not_found`)
    }
    const own = (await json(await asOwner('GET', `/orgs/${org}/webhooks`))).data as { endpoints: Array<{ id: string }> }
    expect(own.endpoints.map((e) => e.id)).toContain(hook.id)
    expect(own.endpoints.map((e) => e.id)).not.toContain(platform.id)
    expect(((await json(await asOwner('GET', `/orgs/${otherOrg}/webhooks`))).data as { endpoints: unknown[] }).endpoints).toEqual([])
  })

  it('answers a member who is no owner 403 and a person outside the organization as if it did not exist', async () => {
    const hook = await addOrgEndpoint(org, ['membership.*'])
    const outsider = await signupUser(iam, { client: { ip: '203.0.113.242' } })
    for (const [who, status, code] of [[colleague, 403, 'org_permission_denied'], [outsider, 404, 'org_not_found'], [admin, 404, 'org_not_found']] as const) {
      for (const [method, path] of [['GET', `/orgs/${org}/webhooks`], ['GET', `/orgs/${org}/webhooks/${hook.id}`], ['POST', `/orgs/${org}/webhooks/${hook.id}/rotate-secret`]] as const) {
        const res = await authed(iam, who, method, path)
        const body = await json(res)
        expect(`${method} ${path}: ${res.status} ${String(body.code)}`).toBe(`${method} ${path}: ${status} ${code}`)
      }
    }
  })

  it("counts an organization's webhook changes and test events per person: past rate_limiters.organizationWebhooks (60 an hour) a 429 with Retry-After", async () => {
    const founder = await signupUser(iam, { client: { ip: '203.0.113.244' } })
    const own = await newOrg(founder, 'hooks-counted')
    const path = `/org-hook/${++pathCounter}`
    hooks.scripts.set(path, [{ status: 200 }])
    const created = await json(await authed(iam, founder, 'POST', `/orgs/${own}/webhooks`, { url: `${hooks.base}${path}`, eventTypes: ['*'] }))
    const hook = (created.data as { endpoint: { id: string } }).endpoint
    const statuses: number[] = []
    // the creation was the first of the 60
    for (let i = 0; i < 60; i++) statuses.push((await authed(iam, founder, 'POST', `/orgs/${own}/webhooks/${hook.id}/test`)).status)
    expect(statuses.slice(0, 59).every((status) => status === 200)).toBe(true)
    expect(statuses[59]).toBe(429)
    const refused = await authed(iam, founder, 'POST', `/orgs/${own}/webhooks/${hook.id}/rotate-secret`)
    expect(refused.status).toBe(429)
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0)
    // reading is not counted, and another owner has a count of their own
    expect((await authed(iam, founder, 'GET', `/orgs/${own}/webhooks/${hook.id}/deliveries`)).status).toBe(200)
    expect((await asOwner('POST', `/orgs/${org}/webhooks/${(await addOrgEndpoint(org, ['*'])).id}/test`)).status).toBe(200)
  })

  it("removes the organization's endpoints with their deliveries when it is deleted, and tells the platform's endpoints it is gone", async () => {
    const doomed = await newOrg(owner, 'hooks-doomed')
    const hook = await addOrgEndpoint(doomed, ['organization.*', 'invitation.*'])
    const platform = await addEndpoint(['organization.deleted'])
    expect((await asOwner('POST', `/orgs/${doomed}/invitations`, { email: `doomed-${Date.now().toString(36)}@example.com`, role: 'member' })).status).toBe(201)
    await waitUntil(() => at(hook.path).length >= 1, 'the invitation at the organization endpoint')
    const deleted = await asOwner('POST', `/orgs/${doomed}/delete`)
    expect(deleted.status, JSON.stringify(await json(deleted))).toBe(200)
    await waitUntil(() => at(platform.path).some((r) => (r.verified as { data: { orgId?: string } }).data.orgId === doomed), "organization.deleted at the platform's endpoint")
    expect(await fetch(`${iam.url}/__test/webhook-rows?org=${doomed}`).then(json)).toEqual({ endpoints: 0, orphanDeliveries: 0, orphanAttempts: 0 })
  })
})

describe('a run of failures', () => {
  // an IAM that switches an endpoint off at its second failed attempt in a row, however recent the first
  let strict: IamServer
  let owner: Session
  // a second platform administrator, who reads German
  let colleague: Session
  let smtp: SmtpCapture
  const asOwner = (method: string, path: string, body?: unknown) => authed(strict, owner, method, path, body)
  const endpoint = async (id: string) => ((await json(await asOwner('GET', `/admin/webhooks/${id}`))).data as { endpoint: Json }).endpoint
  const delivered = async (id: string, msgId: string) => {
    const body = await json(await asOwner('GET', `/admin/webhooks/${id}/deliveries`))
    return (body.data as { deliveries: Json[] }).deliveries.some((d) => d.msgId === msgId && d.status === 'delivered')
  }
  const sendTestTo = async (id: string) => ((await json(await asOwner('POST', `/admin/webhooks/${id}/test`))).data as { msgId: string }).msgId

  beforeAll(async () => {
    smtp = await startSmtp()
    strict = await startIam({
      config: {
        ...PROXY_CONFIG,
        ...WIDE_LOGIN,
        email: { siteName: 'Acme' },
        webhooks: { ...WEBHOOKS, disableAfterFailures: 2, disableAfterFailingMs: 0 },
      },
      env: { IAM_TEST_ROUTES: '1', SMTP_URL: smtp.url },
    })
    owner = await platformAdminOf(strict, '203.0.113.236')
    colleague = await platformAdminOf(strict, '203.0.113.238')
    const chosen = await authed(strict, colleague, 'POST', '/auth/profile', { locale: 'de' })
    expect(chosen.status).toBe(200)
  }, START_TIMEOUT_MS)

  afterAll(async () => {
    await strict?.stop()
    await smtp?.stop()
  })

  const switchedOffMails = (to: string, shown: string) =>
    smtp.mails.filter((m) => recipients(m).includes(to) && (m.text ?? '').includes(shown))

  it('forgets a run of failures at a success: the failure after it starts a new run, two in a row switch the endpoint off', async () => {
    const path = '/strict/1'
    hooks.scripts.set(path, [{ status: 500 }, { status: 200 }, { status: 500 }, { status: 200 }, { status: 500 }])
    const res = await asOwner('POST', '/admin/webhooks', { url: `${hooks.base}${path}`, eventTypes: ['user.deleted'] })
    const made = await json(res)
    expect(res.status, JSON.stringify(made)).toBe(200)
    const { endpoint: created, secret } = made.data as { endpoint: { id: string }; secret: string }
    hooks.secrets.set(path, [secret])
    // one at a time: each event meets its own two answers of the script
    for (const n of [1, 2]) {
      const msgId = await sendTestTo(created.id)
      await waitUntil(() => delivered(created.id, msgId), `test event ${n} to be delivered after its failure`)
      expect(await endpoint(created.id)).toMatchObject({ enabled: true, disabledReason: null })
    }
    await sendTestTo(created.id)
    await waitUntil(async () => (await endpoint(created.id)).enabled === false, 'two failures in a row to switch the endpoint off')
    expect(await endpoint(created.id)).toMatchObject({ enabled: false, disabledReason: 'failing' })
    // six answers made the run; a test event is still sent to a switched-off endpoint (the console's
    // way to check one), so its retries may add more after the switch: each of them verified too
    const got = at(path)
    expect(got.length).toBeGreaterThanOrEqual(6)
    expect(got.map((r) => r.error)).toEqual(Array(got.length).fill(null))
  })

  it('mails every platform administrator, in their language, once, when a run of failures switches an endpoint off, naming it without its query', async () => {
    // the receiver's scripts and secrets are keyed by the request's whole target, query included
    const target = '/strict/mailed?token=kept-out-of-mails'
    hooks.scripts.set(target, [{ status: 500 }])
    const made = await json(await asOwner('POST', '/admin/webhooks', { url: `${hooks.base}${target}`, eventTypes: ['user.deleted'] }))
    const { endpoint: created, secret } = made.data as { endpoint: { id: string }; secret: string }
    hooks.secrets.set(target, [secret])
    await sendTestTo(created.id)
    await waitUntil(async () => (await endpoint(created.id)).enabled === false, 'two failures in a row to switch the endpoint off')
    // named by host and path: no scheme, no query
    const shown = `${new URL(hooks.base).host}/strict/mailed`
    const [toOwner, toColleague] = await Promise.all([
      smtp.waitForMail((m) => recipients(m).includes(owner.email) && (m.text ?? '').includes(shown)),
      smtp.waitForMail((m) => recipients(m).includes(colleague.email) && (m.text ?? '').includes(shown)),
    ])
    expect(toOwner.subject).toBe('Acme: a webhook endpoint was switched off')
    expect(toOwner.text).toContain('every attempt to deliver to it has failed since')
    expect(toOwner.text).toContain('/admin/webhooks')
    expect(toColleague.subject).toBe('Acme: Ein Webhook-Endpunkt wurde abgeschaltet')
    for (const mail of [toOwner, toColleague]) {
      expect(`${mail.text ?? ''}${String(mail.html)}`).not.toContain('kept-out-of-mails')
      // not a link either: every link of a mail leads to the site
      expect(`${mail.text ?? ''}${String(mail.html)}`).not.toContain(hooks.base)
    }
    // the retries after the switch fail again, on an endpoint already off: no second mail
    await waitUntil(() => at(target).length >= 4, 'the retries of the test event')
    expect(switchedOffMails(owner.email, shown)).toHaveLength(1)
  })

  it('mails the administrators once when an endpoint answers 410 Gone, and not again at its next 410', async () => {
    const path = '/strict/gone'
    hooks.scripts.set(path, [{ status: 410 }])
    const made = await json(await asOwner('POST', '/admin/webhooks', { url: `${hooks.base}${path}`, eventTypes: ['user.deleted'] }))
    const { endpoint: created, secret } = made.data as { endpoint: { id: string }; secret: string }
    hooks.secrets.set(path, [secret])
    await sendTestTo(created.id)
    const shown = `${new URL(hooks.base).host}${path}`
    const mail = await smtp.waitForMail((m) => recipients(m).includes(owner.email) && (m.text ?? '').includes(shown))
    expect(mail.text).toContain('it answered 410 Gone')
    expect(await endpoint(created.id)).toMatchObject({ enabled: false, disabledReason: 'gone' })
    // a test event still goes to an endpoint that is off; its 410 switches nothing
    const again = await sendTestTo(created.id)
    const recorded = async () => {
      const { deliveries } = (await json(await asOwner('GET', `/admin/webhooks/${created.id}/deliveries`))).data as { deliveries: Json[] }
      return deliveries.some((d) => d.msgId === again && (d.attempts as number) >= 1)
    }
    await waitUntil(recorded, 'the second 410 to be recorded')
    expect(switchedOffMails(owner.email, shown)).toHaveLength(1)
  })

  /** A new organization of `orgOwner`: its public id. */
  async function orgOf(orgOwner: Session, name: string, slug: string): Promise<string> {
    const created = await authed(strict, orgOwner, 'POST', '/orgs', { name, slug: `${slug}-${Date.now().toString(36)}` })
    expect(created.status).toBe(201)
    return ((await json(created)).data as { org: { id: string } }).org.id
  }

  /**
   * An endpoint of `orgId` at `path` that answers 410 to everything, sent a first test event: how mails
   * name it (`shown`), and `settled()`, which sends a second test event and waits for its attempt to be
   * recorded, by when any mail of the first switch has been sent.
   */
  async function goneOrgEndpoint(orgOwner: Session, orgId: string, path: string): Promise<{ shown: string; settled: () => Promise<void> }> {
    hooks.scripts.set(path, [{ status: 410 }])
    const made = await json(await authed(strict, orgOwner, 'POST', `/orgs/${orgId}/webhooks`, { url: `${hooks.base}${path}`, eventTypes: ['membership.*'] }))
    const { endpoint: hook, secret } = made.data as { endpoint: { id: string }; secret: string }
    hooks.secrets.set(path, [secret])
    const test = () => authed(strict, orgOwner, 'POST', `/orgs/${orgId}/webhooks/${hook.id}/test`).then(json)
    await test()
    const settled = async () => {
      const again = ((await test()).data as { msgId: string }).msgId
      await waitUntil(async () => {
        const { deliveries } = (await json(await authed(strict, orgOwner, 'GET', `/orgs/${orgId}/webhooks/${hook.id}/deliveries`))).data as { deliveries: Json[] }
        return deliveries.some((d) => d.msgId === again && (d.attempts as number) >= 1)
      }, 'the second test event to be tried')
    }
    return { shown: `${new URL(hooks.base).host}${path}`, settled }
  }

  it("mails an organization endpoint's switch-off to the organization's owners, with a link to its page, and not to the platform's administrators", async () => {
    const orgOwner = await signupUser(strict, { client: { ip: '203.0.113.243' } })
    const orgId = await orgOf(orgOwner, 'Strict Hooks', 'strict-hooks')
    const { shown, settled } = await goneOrgEndpoint(orgOwner, orgId, '/strict/org-gone')
    const mail = await smtp.waitForMail((m) => recipients(m).includes(orgOwner.email) && (m.text ?? '').includes(shown))
    expect(mail.text).toContain('it answered 410 Gone')
    expect(mail.text).toContain(`/orgs/${orgId}#webhooks`)
    await settled()
    expect(switchedOffMails(owner.email, shown)).toEqual([])
    expect(switchedOffMails(colleague.email, shown)).toEqual([])
    expect(switchedOffMails(orgOwner.email, shown)).toHaveLength(1)
  })

  it("does not mail an organization's owner whose account is suspended: they cannot switch the endpoint on until the ban ends", async () => {
    const orgOwner = await signupUser(strict, { client: { ip: '203.0.113.244' } })
    // accepting an invitation takes a confirmed address
    const suspended = await signupConfirmed(strict, smtp, { client: { ip: '203.0.113.245' } })
    const orgId = await orgOf(orgOwner, 'Banned Hooks', 'banned-hooks')
    // the second owner joins by the mailed invitation
    expect((await authed(strict, orgOwner, 'POST', `/orgs/${orgId}/invitations`, { email: suspended.email, role: 'owner' })).status).toBe(201)
    const invitation = await smtp.waitForMail((m) => recipients(m).includes(suspended.email) && /invited you to join/.test(m.text ?? ''))
    const token = /[?&]token=([A-Za-z0-9_-]{43})/.exec(invitation.text ?? '')![1]!
    expect((await authed(strict, suspended, 'POST', '/orgs/invitations/accept', { token })).status).toBe(200)
    const banned = await asOwner('POST', `/admin/users/${await publicIdOn(strict, owner, suspended.email)}/ban`, { reason: 'review', until: '2100-01-01T00:00:00Z' })
    expect(banned.status).toBe(200)
    const { shown, settled } = await goneOrgEndpoint(orgOwner, orgId, '/strict/org-banned-owner')
    await smtp.waitForMail((m) => recipients(m).includes(orgOwner.email) && (m.text ?? '').includes(shown))
    await settled()
    expect(switchedOffMails(orgOwner.email, shown)).toHaveLength(1)
    expect(switchedOffMails(suspended.email, shown)).toEqual([])
  })
})

describe("the delivery log's retention", () => {
  // an IAM of its own: the test moves its clock a month on, which every other test here would feel
  const DAY_MS = 24 * 3600 * 1000
  let kept: IamServer
  let owner: Session
  const asOwner = (method: string, path: string, body?: unknown) => authed(kept, owner, method, path, body)
  const deliveriesAt = async (id: string) => ((await json(await asOwner('GET', `/admin/webhooks/${id}/deliveries`))).data as { deliveries: Json[] }).deliveries
  const endpointAt = async (path: string, script: Answer[]) => {
    hooks.scripts.set(path, script)
    const made = await json(await asOwner('POST', '/admin/webhooks', { url: `${hooks.base}${path}`, eventTypes: ['user.deleted'] }))
    const { endpoint, secret } = made.data as { endpoint: { id: string }; secret: string }
    hooks.secrets.set(path, [secret])
    return endpoint.id
  }
  const testEventTo = async (id: string) => ((await json(await asOwner('POST', `/admin/webhooks/${id}/test`))).data as { msgId: string }).msgId

  beforeAll(async () => {
    kept = await startIam({
      config: { ...PROXY_CONFIG, ...WIDE_LOGIN, webhooks: { ...WEBHOOKS, retentionMs: 30 * DAY_MS } },
      env: CLOCK_ENV,
    })
    owner = await platformAdminOf(kept, '203.0.113.237')
  }, START_TIMEOUT_MS)

  afterAll(async () => {
    await kept?.stop()
  })

  it('drops a delivered delivery from the log once its event is older than webhooks.retentionMs, and keeps a pending one and a newer one', async () => {
    const delivering = await endpointAt('/retention/ok', [{ status: 200 }])
    // a receiver that asks for a day's wait each time: its delivery stays pending
    const waiting = await endpointAt('/retention/wait', [{ status: 503, headers: { 'retry-after': '86400' } }])
    const old = await testEventTo(delivering)
    const stuck = await testEventTo(waiting)
    await waitUntil(async () => (await deliveriesAt(delivering)).some((d) => d.msgId === old && d.status === 'delivered'), 'the first test event to be delivered')
    await waitUntil(async () => (await deliveriesAt(waiting)).some((d) => d.msgId === stuck && d.attempts === 1), 'the waiting endpoint to answer once')

    // each verified by standardwebhooks (the ones after the move carry the moved clock's
    // timestamp, which a receiver rightly refuses as too new)
    const before = [...at('/retention/ok'), ...at('/retention/wait')]
    expect(before.map((r) => r.error)).toEqual(Array(before.length).fill(null))

    await advanceClock(kept, 31 * DAY_MS)
    // a month on, the session has expired: signed in again, as an administrator would be
    owner = await loginUser(kept, owner.email, owner.password, owner)
    const recent = await testEventTo(delivering)
    await waitUntil(async () => {
      const log = await deliveriesAt(delivering)
      return log.length === 1 && log[0]!.msgId === recent && log[0]!.status === 'delivered'
    }, 'the month-old delivery to leave the log, and the new one to be delivered')
    const waitingLog = await deliveriesAt(waiting)
    expect(waitingLog.map((d) => [d.msgId, d.status])).toEqual([[stuck, 'pending']])
  })
})
