/**
 * What a SCIM client's changes tell the rest of the world (docs/scim.md, "Security events and
 * webhooks"; docs/webhooks.md): each change to an account or a membership made through the IAM's
 * /scim/v2 records a security event of the person acted on, with the SCIM client's address, and
 * queues its webhooks in the same transaction; a call that changes nothing queues nothing. The
 * deliveries are read from the admin delivery log (what was queued, exactly) and from a receiver of
 * the test's own on 127.0.0.2, verified with the `standardwebhooks` package (what arrives).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PROXY_CONFIG, signupUser, type Session } from '../helpers/accounts'
import { authed, dataOf, newOrg, person } from '../helpers/enterprise'
import { startIam, type IamServer, type Json } from '../helpers/iam-server'
import { waitUntil } from '../helpers/wait'
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver'
import { WIDE_LOGIN } from './second-factor-http'

const RECEIVER_HOST = '127.0.0.2'
const SCIM_CLIENT_IP = '203.0.113.77'
const USER = 'urn:ietf:params:scim:schemas:core:2.0:User'
const GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group'
const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp'

let hooks: WebhookReceiver
let iam: IamServer
let admin: Session

beforeAll(async () => {
  hooks = await startWebhookReceiver(RECEIVER_HOST)
  iam = await startIam({
    config: {
      ...PROXY_CONFIG,
      ...WIDE_LOGIN,
      anomalies: { velocity: { count: 500 } },
      webhooks: { enabled: true, pollMs: 50, retryScheduleMs: [100], jitter: 0, timeoutMs: 1000, allowHttp: true, allowAddresses: [`${RECEIVER_HOST}/32`] },
    },
    env: { IAM_TEST_ROUTES: '1' },
  })
  admin = await signupUser(iam, { client: { ip: '203.0.113.201' } })
  const res = await fetch(`${iam.url}/__test/platform-admin`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: admin.email, admin: true }) })
  expect(res.status).toBe(200)
}, 240_000)

afterAll(async () => {
  await iam?.stop()
  await hooks?.stop()
})

const asAdmin = (method: string, path: string, body?: unknown) => authed(iam, admin, method, path, body)

let endpoints = 0
/** An endpoint for the membership family and user.created, added now: it sees only what happens after. */
async function endpoint(): Promise<{ id: string; path: string }> {
  const path = `/scim-hook/${++endpoints}`
  hooks.scripts.set(path, [{ status: 204 }])
  const res = await asAdmin('POST', '/admin/webhooks', { url: `${hooks.base}${path}`, eventTypes: ['user.created', 'membership.*'] })
  const data = (await dataOf(res)) as { endpoint: { id: string }; secret: string }
  expect(res.status).toBe(200)
  hooks.secrets.set(path, [data.secret])
  return { id: data.endpoint.id, path }
}

interface Queued {
  type: string
  data: { user?: { id: string }; orgId?: string; member?: string; role?: string; method?: string }
}

/** Every delivery queued for the endpoint, oldest first: its payload. */
async function queued(endpointId: string): Promise<Queued[]> {
  const deliveries = (await dataOf(await asAdmin('GET', `/admin/webhooks/${endpointId}/deliveries?limit=100`))).deliveries as Array<{ payload: Queued }>
  return deliveries.map((d) => d.payload).reverse()
}

let domains = 0
/** An owner with an organization, a verified domain and its SCIM client calling from SCIM_CLIENT_IP. */
async function provisionedOrg() {
  const domain = `scimhooks${Date.now().toString(36)}${++domains}.test`
  const owner = await person(iam)
  const org = await newOrg(iam, owner)
  expect((await authed(iam, owner, 'POST', `/orgs/${org}/domains`, { domain })).status).toBe(201)
  const verified = await fetch(`${iam.url}/__test/domain-verified`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ orgId: org, domain }) })
  expect(verified.status).toBe(200)
  const token = ((await dataOf(await authed(iam, owner, 'POST', `/orgs/${org}/scim/token`))) as { token: string }).token
  const scim = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${iam.url}/scim/v2${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': SCIM_CLIENT_IP, ...(body === undefined ? {} : { 'content-type': 'application/scim+json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    const text = await res.text()
    return { status: res.status, text, json: (text ? JSON.parse(text) : {}) as Json & { id: string } }
  }
  let people = 0
  const address = (tag: string) => `${tag}${++people}@${domain}`
  const create = async (userName: string, more: Json = {}) => {
    const res = await scim('POST', '/Users', { schemas: [USER], userName, ...more })
    expect(res.status, res.text).toBe(201)
    return res.json.id
  }
  const active = (scimId: string, value: boolean) => scim('PATCH', `/Users/${scimId}`, { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'active', value }] })
  return { owner, org, domain, scim, address, create, active }
}

/** The account's public id, and its security events as the administrator's user page shows them. */
async function accountOf(email: string): Promise<{ id: string; events: Array<{ type: string; ipAddress: string | null; details: Json }> }> {
  const found = (await dataOf(await asAdmin('GET', `/admin/users?q=${encodeURIComponent(email)}`))).users as Array<{ id: string; email: string }>
  const id = found.find((u) => u.email === email)!.id
  const detail = (await dataOf(await asAdmin('GET', `/admin/users/${id}`))) as { user?: { securityEvents: unknown }; securityEvents?: unknown }
  const events = (detail.securityEvents ?? detail.user?.securityEvents) as Array<{ type: string; ipAddress: string | null; details: Json }>
  return { id, events }
}

const ofOrg = (all: Queued[], org: string) => all.filter((q) => q.data.orgId === org)
const kinds = (all: Queued[]) => all.map((q) => q.type)

describe('webhooks and security events of SCIM changes', () => {
  it('queues user.created and membership.created for an account SCIM makes, each once, and records both events with the SCIM client address', async () => {
    const { org, address, create } = await provisionedOrg()
    const hook = await endpoint()
    const email = address('new')
    await create(email)
    const account = await accountOf(email)
    const all = ofOrg(await queued(hook.id), org)
    expect(kinds(all)).toEqual(['user.created', 'membership.created'])
    expect(all[0]!.data).toEqual({ user: { id: account.id }, method: 'scim', orgId: org })
    expect(all[1]!.data).toEqual({ user: { id: account.id }, orgId: org, member: account.id, role: 'member', method: 'scim' })
    const scimEvents = account.events.filter((e) => ['signed_up', 'org_member_provisioned'].includes(e.type))
    expect(scimEvents.map((e) => e.type).sort()).toEqual(['org_member_provisioned', 'signed_up'])
    for (const event of scimEvents) expect(event.ipAddress, event.type).toBe(SCIM_CLIENT_IP)
    // and the receiver gets them signed, as every delivery
    await waitUntil(() => hooks.at(hook.path).filter((r) => r.verified !== null).length >= 2, 'both deliveries at the receiver')
    expect(hooks.at(hook.path).map((r) => (r.verified as { type: string }).type).sort()).toEqual(['membership.created', 'user.created'])
  })

  it('queues membership.created and no user.created for an existing account SCIM links, and the person sees it in their own activity', async () => {
    const { org, domain, create } = await provisionedOrg()
    const linked = await person(iam, `linked${Date.now().toString(36)}@${domain}`)
    const hook = await endpoint()
    await create(linked.email)
    const all = ofOrg(await queued(hook.id), org)
    expect(kinds(all)).toEqual(['membership.created'])
    const own = (await dataOf(await authed(iam, linked, 'GET', '/auth/security-events'))).events as Array<{ type: string; ipAddress: string; details: Json }>
    const provisioned = own.find((e) => e.type === 'org_member_provisioned')
    expect(provisioned?.ipAddress).toBe(SCIM_CLIENT_IP)
    expect(provisioned?.details).toMatchObject({ orgId: org, orgName: 'Acme', method: 'scim' })
    expect(own.some((e) => e.type === 'signed_up' && e.details.method === 'scim')).toBe(false)
  })

  it('queues membership.deactivated once for active false however often it is sent, and membership.reactivated for active true', async () => {
    const { org, address, create, active } = await provisionedOrg()
    const email = address('toggle')
    const scimId = await create(email)
    const hook = await endpoint()
    expect((await active(scimId, false)).status).toBe(200)
    expect((await active(scimId, false)).status).toBe(200)
    expect(kinds(ofOrg(await queued(hook.id), org))).toEqual(['membership.deactivated'])
    expect((await active(scimId, true)).status).toBe(200)
    expect((await active(scimId, true)).status).toBe(200)
    const all = ofOrg(await queued(hook.id), org)
    expect(kinds(all)).toEqual(['membership.deactivated', 'membership.reactivated'])
    const account = await accountOf(email)
    expect(all[1]!.data).toEqual({ user: { id: account.id }, orgId: org, member: account.id, method: 'scim' })
    const toggles = account.events.filter((e) => e.type === 'org_member_deprovisioned' || e.type === 'org_member_reprovisioned')
    expect(toggles.map((e) => e.type).sort()).toEqual(['org_member_deprovisioned', 'org_member_reprovisioned'])
    for (const event of toggles) expect(event.ipAddress).toBe(SCIM_CLIENT_IP)
  })

  it('queues user.created, membership.created and membership.deactivated, in that order, for an account SCIM makes inactive from the start', async () => {
    const { org, address, create } = await provisionedOrg()
    const hook = await endpoint()
    const email = address('born-off')
    await create(email, { active: false })
    const account = await accountOf(email)
    const all = ofOrg(await queued(hook.id), org)
    expect(kinds(all)).toEqual(['user.created', 'membership.created', 'membership.deactivated'])
    for (const q of all) expect(q.data.user).toEqual({ id: account.id })
    const recorded = account.events.filter((e) => ['signed_up', 'org_member_provisioned', 'org_member_deprovisioned'].includes(e.type))
    expect(recorded.map((e) => e.type).sort()).toEqual(['org_member_deprovisioned', 'org_member_provisioned', 'signed_up'])
    for (const event of recorded) expect(event.ipAddress, event.type).toBe(SCIM_CLIENT_IP)
  })

  it('queues membership.deleted alone for a DELETE of an active member, and nothing for a PUT that only renames', async () => {
    const { org, address, create, scim } = await provisionedOrg()
    const email = address('gone')
    const scimId = await create(email)
    const hook = await endpoint()
    const renamed = await scim('PUT', `/Users/${scimId}`, { schemas: [USER], userName: email, displayName: 'Someone Else' })
    expect(renamed.status, renamed.text).toBe(200)
    expect(await queued(hook.id)).toEqual([])
    expect((await scim('DELETE', `/Users/${scimId}`)).status).toBe(204)
    const all = ofOrg(await queued(hook.id), org)
    expect(kinds(all)).toEqual(['membership.deleted'])
    const account = await accountOf(email)
    expect(all[0]!.data).toEqual({ user: { id: account.id }, orgId: org, member: account.id, method: 'scim' })
    expect(account.events.find((e) => e.type === 'org_member_unprovisioned')?.ipAddress).toBe(SCIM_CLIENT_IP)
    expect(account.events.some((e) => e.type === 'org_member_deprovisioned')).toBe(false)
  })

  it('queues membership.updated with the role a group gives, nothing for the same members again, and member for one the group drops or whose group is deleted', async () => {
    const { org, address, create, scim } = await provisionedOrg()
    const email = address('grouped')
    const scimId = await create(email)
    const hook = await endpoint()
    const group = await scim('POST', '/Groups', { schemas: [GROUP], displayName: 'Engineers', members: [{ value: scimId }] })
    expect(group.status, group.text).toBe(201)
    const account = await accountOf(email)
    expect(ofOrg(await queued(hook.id), org).map((q) => q.data)).toEqual([{ user: { id: account.id }, orgId: org, member: account.id, role: 'Engineers', method: 'scim' }])
    const same = await scim('PUT', `/Groups/${group.json.id}`, { schemas: [GROUP], displayName: 'Engineers', members: [{ value: scimId }] })
    expect(same.status, same.text).toBe(200)
    expect(ofOrg(await queued(hook.id), org)).toHaveLength(1)
    const dropped = await scim('PATCH', `/Groups/${group.json.id}`, { schemas: [PATCH_OP], Operations: [{ op: 'remove', path: `members[value eq "${scimId}"]` }] })
    expect(dropped.status, dropped.text).toBe(200)
    const all = ofOrg(await queued(hook.id), org)
    expect(all.map((q) => [q.type, q.data.role])).toEqual([
      ['membership.updated', 'Engineers'],
      ['membership.updated', 'member'],
    ])
    const roles = (await accountOf(email)).events.filter((e) => e.type === 'org_member_role_provisioned')
    expect(roles.map((e) => [e.details.role, e.ipAddress])).toEqual([
      ['member', SCIM_CLIENT_IP],
      ['Engineers', SCIM_CLIENT_IP],
    ])
    // a deleted group's holders go back to member: each one's role changed
    const again = await scim('PATCH', `/Groups/${group.json.id}`, { schemas: [PATCH_OP], Operations: [{ op: 'add', path: 'members', value: [{ value: scimId }] }] })
    expect(again.status, again.text).toBe(200)
    expect((await scim('DELETE', `/Groups/${group.json.id}`)).status).toBe(204)
    expect(ofOrg(await queued(hook.id), org).map((q) => [q.type, q.data.role, q.data.member])).toEqual([
      ['membership.updated', 'Engineers', account.id],
      ['membership.updated', 'member', account.id],
      ['membership.updated', 'Engineers', account.id],
      ['membership.updated', 'member', account.id],
    ])
  })

  it('queues nothing for a deactivation SCIM refuses: the last owner stays active', async () => {
    const domain = `lastowner${Date.now().toString(36)}.test`
    const owner = await person(iam, `owner@${domain}`)
    const org = await newOrg(iam, owner)
    expect((await authed(iam, owner, 'POST', `/orgs/${org}/domains`, { domain })).status).toBe(201)
    expect((await fetch(`${iam.url}/__test/domain-verified`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ orgId: org, domain }) })).status).toBe(200)
    const token = ((await dataOf(await authed(iam, owner, 'POST', `/orgs/${org}/scim/token`))) as { token: string }).token
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/scim+json', 'x-forwarded-for': SCIM_CLIENT_IP }
    const hook = await endpoint()
    // the owner is a member already: linking makes no membership, so nothing is queued either
    const linked = await fetch(`${iam.url}/scim/v2/Users`, { method: 'POST', headers, body: JSON.stringify({ schemas: [USER], userName: owner.email }) })
    expect(linked.status).toBe(201)
    const scimId = ((await linked.json()) as { id: string }).id
    const off = await fetch(`${iam.url}/scim/v2/Users/${scimId}`, { method: 'PATCH', headers, body: JSON.stringify({ schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'active', value: false }] }) })
    expect(off.status).toBe(400)
    expect(await queued(hook.id)).toEqual([])
  })
})

describe('the member list', () => {
  it('marks a member the identity provider deactivated, and only while they are', async () => {
    const { owner, org, address, create, active } = await provisionedOrg()
    const email = address('listed')
    const scimId = await create(email)
    const listed = async () => ((await dataOf(await authed(iam, owner, 'GET', `/orgs/${org}/members`))).members as Array<{ email: string; deactivatedAt: string | null }>)
    const before = await listed()
    expect(before.map((m) => m.deactivatedAt)).toEqual([null, null])
    expect((await active(scimId, false)).status).toBe(200)
    const during = await listed()
    const member = during.find((m) => m.email === email)!
    expect(Number.isNaN(Date.parse(member.deactivatedAt ?? ''))).toBe(false)
    expect(during.find((m) => m.email === owner.email)!.deactivatedAt).toBeNull()
    expect((await active(scimId, true)).status).toBe(200)
    expect((await listed()).find((m) => m.email === email)!.deactivatedAt).toBeNull()
  })

  it('shows the same mark on the administrator view of the organization', async () => {
    const { org, address, create, active } = await provisionedOrg()
    const email = address('admin-listed')
    const scimId = await create(email)
    const adminListed = async () => ((await dataOf(await asAdmin('GET', `/admin/orgs/${org}`))).members as Array<{ email: string; deactivatedAt: string | null }>)
    expect((await adminListed()).find((m) => m.email === email)!.deactivatedAt).toBeNull()
    expect((await active(scimId, false)).status).toBe(200)
    const during = (await adminListed()).find((m) => m.email === email)!
    expect(Number.isNaN(Date.parse(during.deactivatedAt ?? ''))).toBe(false)
    expect((await active(scimId, true)).status).toBe(200)
    expect((await adminListed()).find((m) => m.email === email)!.deactivatedAt).toBeNull()
  })
})
