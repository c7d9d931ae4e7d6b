/**
 * SCIM 2.0 provisioning (docs/scim.md) through the gateway's /scim/v2 forwarder against the real
 * IAM: a client that sends what RFC 7644's examples send (sections 3.3, 3.4.2, 3.5.1, 3.5.2, 3.6),
 * tenant isolation between two organizations' tokens, token rotation and revocation, bad bodies
 * answered 400 with a `scimType`, and the deprovisioning promise: a person of the organization who
 * is signed in is out of it at their next request after `active: false`, and nothing outside the
 * organization is touched.
 */
import { request as httpRequest } from 'node:http'
import { describe, expect, it } from 'vitest'
import { ESCAPING_SEGMENTS } from '../helpers/escaping-segments'
import { signRequestV2 } from '../../iam/client/hmac'
import { hmac, sharedBffIam } from '../helpers/shared-bff-iam'
import { browserLike, confirmEmailThrough, freshEmail, PASSWORD, setupStackOnSharedIam } from './bff-harness'

// the gateway trusts a load balancer on 127.0.0.1 (played by the SCIM client of one test, which
// sends X-Forwarded-For); requests without the header come from 127.0.0.1 itself
const stack = await setupStackOnSharedIam({ proxy: { trust: true, ipToTrust: '127.0.0.1' } })
const SCIM_CLIENT_IP = '203.0.113.78'

type Browser = ReturnType<typeof browserLike>
const USER = 'urn:ietf:params:scim:schemas:core:2.0:User'
const GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group'
const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp'
const ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error'

/** A fresh address of this run in `domain`. */
const addressIn = (domain: string, tag: string) => freshEmail(tag).replace(/@example\.com$/, `@${domain}`)

/** A person signed up through the gateway (an address in `domain`), their address confirmed unless `confirmed: false`. */
async function signedUp(tag: string, { confirmed = true, domain = 'example.com' } = {}): Promise<{ email: string; b: Browser }> {
  const email = addressIn(domain, tag)
  const b = browserLike(stack.gateway.url)
  const res = await b.call('/api/auth/signup', { method: 'POST', body: { email, password: PASSWORD, confirmedPassword: PASSWORD, name: `${tag} person`, termsConsent: 'on' } })
  expect(res.status, res.text).toBe(201)
  if (confirmed) await confirmEmailThrough(b, stack.iam, email)
  return { email, b }
}

let slugs = 0
const freshSlug = () => `scim-${Date.now().toString(36)}-${(slugs++).toString(36)}`

async function createdOrg(b: Browser): Promise<string> {
  const res = await b.call('/api/orgs', { method: 'POST', body: { name: 'Provisioned Co', slug: freshSlug() } })
  expect(res.status, res.text).toBe(201)
  return (res.json.data as { org: { id: string } }).org.id
}

async function scimToken(b: Browser, orgId: string): Promise<string> {
  const res = await b.call(`/api/orgs/${orgId}/scim/token`, { method: 'POST' })
  expect(res.status, res.text).toBe(201)
  return (res.json.data as { token: string }).token
}

/** What the tests read of a SCIM answer (a resource, a list or an error). */
interface ScimJson {
  id: string
  userName: string
  active: boolean
  scimType?: string
  meta: { location: string; version: string }
  members: Array<{ value: string }>
  totalResults: number
  Resources: Array<{ id: string; displayName: string }>
  [attribute: string]: unknown
}

/** An identity provider's SCIM client: bearer token, application/scim+json, no cookies. */
function scimClient(token: string) {
  return async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${stack.gateway.url}/scim/v2${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, accept: 'application/scim+json', ...(body === undefined ? {} : { 'content-type': 'application/scim+json' }), ...headers },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    })
    const text = await res.text()
    return { status: res.status, headers: res.headers, text, json: (text ? JSON.parse(text) : {}) as ScimJson }
  }
}

/** One request exactly as written (fetch would resolve `..` and `%2e%2e` before sending). */
function raw(path: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  const url = new URL(stack.gateway.url)
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: url.hostname, port: url.port, path, method: 'GET', headers }, (res) => {
      let body = ''
      res.on('data', (chunk: Buffer) => (body += chunk.toString()))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
    })
    req.on('error', reject)
    req.end()
  })
}

/**
 * Marks `domain` of the organization verified, as its TXT record found would (a test route of the
 * shared IAM, which has no DNS server to publish the record on; the DNS path is
 * tests/iam/enterprise-sso.test.ts's).
 */
async function verifiedDomain(b: Browser, orgId: string, domain: string): Promise<void> {
  const added = await b.call(`/api/orgs/${orgId}/domains`, { method: 'POST', body: { domain } })
  expect(added.status, added.text).toBe(201)
  const body = JSON.stringify({ orgId, domain })
  const res = await fetch(`${sharedBffIam().url}/__test/domain-verified`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...signRequestV2({ ...hmac, method: 'POST', url: '/__test/domain-verified', body }) },
    body,
  })
  expect(res.status, await res.text()).toBe(200)
}

/** An owner (an address of the organization's domain) with an organization, its verified domain and its SCIM client. */
async function provisionedOrg(tag: string) {
  const domain = `${freshSlug()}.test`
  const owner = await signedUp(`${tag}-owner`, { domain })
  const orgId = await createdOrg(owner.b)
  await verifiedDomain(owner.b, orgId, domain)
  const token = await scimToken(owner.b, orgId)
  return { owner, orgId, token, domain, address: (t: string) => addressIn(domain, t), scim: scimClient(token) }
}

/** RFC 7644 section 3.3's example body, with an address of this run. */
const userBody = (userName: string, more: Record<string, unknown> = {}) => ({
  schemas: [USER],
  userName,
  externalId: `ext-${userName}`,
  name: { formatted: 'Ms. Barbara J Jensen III', familyName: 'Jensen', givenName: 'Barbara' },
  displayName: 'Babs Jensen',
  ...more,
})

describe('SCIM through the gateway', () => {
  it('serves the discovery documents and refuses a request without the organization token with 401 and WWW-Authenticate', async () => {
    const { scim } = await provisionedOrg('discovery')
    const config = await scim('GET', '/ServiceProviderConfig')
    expect(config.status, config.text).toBe(200)
    expect(config.headers.get('content-type')).toMatch(/^application\/scim\+json/)
    expect(config.json).toMatchObject({ patch: { supported: true }, filter: { supported: true }, bulk: { supported: false } })
    expect((await scim('GET', '/ResourceTypes')).json.Resources.map((r: { id: string }) => r.id)).toEqual(['User', 'Group'])
    expect((await scim('GET', '/Schemas')).json.totalResults).toBe(2)

    for (const token of ['', 'scim_' + 'A'.repeat(43), 'not-a-token']) {
      const res = await scimClient(token)('GET', '/Users')
      expect(res.status, token).toBe(401)
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/)
      expect(res.json).toMatchObject({ schemas: [ERROR], status: '401' })
    }
  })

  it('creates a user as RFC 7644 section 3.3 does, finds it by userName eq in any letter case, and pages the list', async () => {
    const { scim, address } = await provisionedOrg('create')
    const userName = address('bjensen')
    const created = await scim('POST', '/Users', userBody(userName))
    expect(created.status, created.text).toBe(201)
    expect(created.json).toMatchObject({
      schemas: [USER],
      userName,
      externalId: `ext-${userName}`,
      name: { givenName: 'Barbara', familyName: 'Jensen', formatted: 'Ms. Barbara J Jensen III' },
      displayName: 'Babs Jensen',
      emails: [{ value: userName, primary: true }],
      active: true,
      meta: { resourceType: 'User', version: 'W/"1"' },
    })
    expect(created.headers.get('location')).toBe(created.json.meta.location)
    expect(created.json.meta.location).toMatch(new RegExp(`/scim/v2/Users/${created.json.id}$`))

    const again = await scim('POST', '/Users', userBody(userName))
    expect(again.status).toBe(409)
    expect(again.json).toMatchObject({ schemas: [ERROR], status: '409', scimType: 'uniqueness' })

    const filter = encodeURIComponent(`userName eq "${userName.toUpperCase()}"`)
    const found = await scim('GET', `/Users?filter=${filter}`)
    expect(found.status, found.text).toBe(200)
    expect(found.json).toMatchObject({ totalResults: 1, startIndex: 1, itemsPerPage: 1, Resources: [{ id: created.json.id }] })
    const byExternal = await scim('GET', `/Users?filter=${encodeURIComponent(`externalId eq "ext-${userName}" and active eq true`)}`)
    expect(byExternal.json.totalResults).toBe(1)
    const byEmail = await scim('GET', `/Users?filter=${encodeURIComponent(`emails.value eq "${userName}" or userName eq "nobody@example.com"`)}`)
    expect(byEmail.json.totalResults).toBe(1)
    expect((await scim('GET', `/Users?filter=${encodeURIComponent('userName eq "nobody@example.com"')}`)).json).toMatchObject({ totalResults: 0, Resources: [] })

    const second = await scim('POST', '/Users', userBody(address('second')))
    expect(second.status).toBe(201)
    const page = await scim('GET', '/Users?startIndex=2&count=1')
    expect(page.json).toMatchObject({ totalResults: 2, startIndex: 2, itemsPerPage: 1, Resources: [{ id: second.json.id }] })
    expect((await scim('GET', '/Users?count=0')).json).toMatchObject({ totalResults: 2, itemsPerPage: 0 })
  })

  it('replaces and removes attributes by PATCH, refuses a new userName, and forgets a deleted user', async () => {
    const { scim, address } = await provisionedOrg('patch')
    const userName = address('patched')
    const { json: user } = await scim('POST', '/Users', userBody(userName))
    const replaced = await scim('PATCH', `/Users/${user.id}`, {
      schemas: [PATCH_OP],
      Operations: [
        { op: 'replace', path: 'name.familyName', value: 'Jensen-Smith' },
        { op: 'Replace', value: { displayName: 'Barbara J-S' } },
      ],
    })
    expect(replaced.status, replaced.text).toBe(200)
    expect(replaced.json).toMatchObject({ name: { familyName: 'Jensen-Smith', givenName: 'Barbara' }, displayName: 'Barbara J-S', meta: { version: 'W/"2"' } })
    const removed = await scim('PATCH', `/Users/${user.id}`, { schemas: [PATCH_OP], Operations: [{ op: 'remove', path: 'externalId' }] })
    expect(removed.status, removed.text).toBe(200)
    expect(removed.json).not.toHaveProperty('externalId')

    const moved = await scim('PUT', `/Users/${user.id}`, userBody(address('elsewhere')))
    expect(moved.status).toBe(400)
    expect(moved.json).toMatchObject({ scimType: 'mutability' })
    const stale = await scim('PUT', `/Users/${user.id}`, userBody(userName), { 'if-match': 'W/"1"' })
    expect(stale.status).toBe(412)

    expect((await scim('DELETE', `/Users/${user.id}`)).status).toBe(204)
    expect((await scim('GET', `/Users/${user.id}`)).status).toBe(404)
    expect((await scim('DELETE', `/Users/${user.id}`)).status).toBe(404)
  })

  it('maps groups to roles: adding a member by PATCH gives the role, removing gives member back, and displayName eq finds the group', async () => {
    const { owner, orgId, scim, address } = await provisionedOrg('groups')
    const { json: user } = await scim('POST', '/Users', userBody(address('grouped')))
    const group = await scim('POST', '/Groups', { schemas: [GROUP], displayName: 'Engineering', externalId: 'grp-eng' })
    expect(group.status, group.text).toBe(201)
    expect(group.json).toMatchObject({ displayName: 'Engineering', externalId: 'grp-eng', members: [] })
    // displayName is not case-exact (RFC 7643 section 4.2): another letter case is the same name
    expect((await scim('POST', '/Groups', { schemas: [GROUP], displayName: 'engineering' })).json).toMatchObject({ status: '409', scimType: 'uniqueness' })
    const found = await scim('GET', `/Groups?filter=${encodeURIComponent('displayName eq "Engineering"')}`)
    expect(found.json.Resources.map((g: { id: string }) => g.id)).toContain(group.json.id)
    expect((await scim('POST', '/Groups', { schemas: [GROUP], displayName: 'Admin' })).json).toMatchObject({ status: '409', scimType: 'uniqueness' })

    const added = await scim('PATCH', `/Groups/${group.json.id}`, { schemas: [PATCH_OP], Operations: [{ op: 'add', path: 'members', value: [{ value: user.id }] }] })
    expect(added.status, added.text).toBe(200)
    expect(added.json.members).toEqual([expect.objectContaining({ value: user.id })])
    const members = async () => ((await owner.b.call(`/api/orgs/${orgId}/members`)).json.data as { members: Array<{ email: string; roleName: string }> }).members
    expect((await members()).find((m) => m.email === user.userName)?.roleName).toBe('Engineering')

    const dropped = await scim('PATCH', `/Groups/${group.json.id}`, { schemas: [PATCH_OP], Operations: [{ op: 'remove', path: `members[value eq "${user.id}"]` }] })
    expect(dropped.status, dropped.text).toBe(200)
    expect(dropped.json.members).toEqual([])
    expect((await members()).find((m) => m.email === user.userName)?.roleName).toBe('member')

    const stranger = await scim('PATCH', `/Groups/${group.json.id}`, { schemas: [PATCH_OP], Operations: [{ op: 'add', path: 'members', value: [{ value: '00000000-0000-4000-8000-000000000000' }] }] })
    expect(stranger.json).toMatchObject({ status: '400', scimType: 'invalidValue' })
  })

  it('answers bad bodies and filters with 400 and a scimType, never a 500', async () => {
    const { scim, address } = await provisionedOrg('bad')
    const cases: Array<[string, string, unknown, string]> = [
      ['POST', '/Users', '{not json', 'invalidSyntax'],
      ['POST', '/Users', '[1,2]', 'invalidSyntax'],
      ['POST', '/Users', { schemas: [USER] }, 'invalidValue'],
      ['POST', '/Users', { schemas: ['urn:x'], userName: address('x') }, 'invalidValue'],
      ['POST', '/Users', { schemas: [USER], userName: 'not an address' }, 'invalidValue'],
      ['POST', '/Users', { schemas: [USER], userName: address('nul'), displayName: 'a\u0000b' }, 'invalidValue'],
      ['PATCH', '/Users/00000000-0000-4000-8000-000000000000', { schemas: [PATCH_OP], Operations: [{ op: 'move' }] }, 'invalidSyntax'],
      ['PATCH', '/Users/00000000-0000-4000-8000-000000000000', { Operations: [] }, 'invalidSyntax'],
      ['POST', '/Groups', { schemas: [GROUP], displayName: '' }, 'invalidValue'],
    ]
    for (const [method, path, body, scimType] of cases) {
      const res = await scim(method, path, body)
      expect(res.status, `${method} ${path} ${JSON.stringify(body)}: ${res.text}`).toBe(400)
      expect(res.json).toMatchObject({ schemas: [ERROR], status: '400', scimType })
    }
    const filter = await scim('GET', `/Users?filter=${encodeURIComponent('userName eq')}`)
    expect(filter.json).toMatchObject({ status: '400', scimType: 'invalidFilter' })
    const { json: user } = await scim('POST', '/Users', userBody(address('target')))
    const noTarget = await scim('PATCH', `/Users/${user.id}`, { schemas: [PATCH_OP], Operations: [{ op: 'remove' }] })
    expect(noTarget.status, noTarget.text).toBe(400)
    expect(noTarget.json.scimType).toBe('noTarget')
    const wrongType = await scim('POST', '/Users', 'userName=x', { 'content-type': 'application/x-www-form-urlencoded' })
    expect(wrongType.status).toBe(415)
    expect((await scim('GET', '/Nothing')).status).toBe(404)
  })

  it('forwards no escaping path: every spelling of a dot segment or encoded separator stays at the gateway', async () => {
    const { token } = await provisionedOrg('escape')
    for (const segment of ESCAPING_SEGMENTS) {
      const res = await raw(`/scim/v2/${segment}/orgs`, { authorization: `Bearer ${token}` })
      // `..`, `.` and an empty segment may be resolved by the gateway's own router before any
      // handler runs; every other spelling reaches the forwarder, which refuses it
      if (!['..', '.', ''].includes(segment)) expect(res.status, segment).toBe(400)
      else expect(res.status, segment).toBeGreaterThanOrEqual(400)
      expect(res.body, segment).not.toContain('"orgs"')
    }
  })

  it('keeps organizations apart: the token of one organization finds nothing of another', async () => {
    const a = await provisionedOrg('tenant-a')
    const b = await provisionedOrg('tenant-b')
    const userName = a.address('tenant')
    const { json: user } = await a.scim('POST', '/Users', userBody(userName))
    const group = await a.scim('POST', '/Groups', { schemas: [GROUP], displayName: 'Tenant A only' })
    expect((await b.scim('GET', `/Users/${user.id}`)).status).toBe(404)
    expect((await b.scim('PATCH', `/Users/${user.id}`, { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'active', value: false }] })).status).toBe(404)
    expect((await b.scim('PUT', `/Users/${user.id}`, userBody(userName))).status).toBe(404)
    expect((await b.scim('DELETE', `/Users/${user.id}`)).status).toBe(404)
    expect((await b.scim('GET', `/Groups/${group.json.id}`)).status).toBe(404)
    expect((await b.scim('DELETE', `/Groups/${group.json.id}`)).status).toBe(404)
    expect((await b.scim('GET', `/Users?filter=${encodeURIComponent(`userName eq "${userName}"`)}`)).json.totalResults).toBe(0)
    expect((await b.scim('GET', '/Users')).json.totalResults).toBe(0)
    expect((await b.scim('GET', '/Groups')).json.Resources.map((g: { displayName: string }) => g.displayName)).toEqual(['admin', 'member'])
    // still there for its own organization
    expect((await a.scim('GET', `/Users/${user.id}`)).json.active).toBe(true)
  })

  it('rotating the token stops the old one at once, and revoking stops provisioning; only owners manage it', async () => {
    const { owner, orgId, token, scim, domain } = await provisionedOrg('rotate')
    expect((await scim('GET', '/Users')).status).toBe(200)
    expect((await owner.b.call(`/api/orgs/${orgId}/scim/token`, { method: 'POST' })).json).toMatchObject({ code: 'scim_token_exists' })
    const rotated = await owner.b.call(`/api/orgs/${orgId}/scim/token/rotate`, { method: 'POST' })
    expect(rotated.status, rotated.text).toBe(200)
    const fresh = (rotated.json.data as { token: string }).token
    expect(fresh).not.toBe(token)
    expect((await scim('GET', '/Users')).status).toBe(401)
    expect((await scimClient(fresh)('GET', '/Users')).status).toBe(200)
    const connection = await owner.b.call(`/api/orgs/${orgId}/scim`)
    expect(connection.json.data).toMatchObject({ connection: { hint: fresh.slice(-4), rotatedAt: expect.any(String) } })
    expect(connection.text).not.toContain(fresh)

    const log = await owner.b.call(`/api/orgs/${orgId}/scim/events`)
    expect((log.json.data as { events: Array<{ action: string }> }).events.map((e) => e.action).slice(0, 2)).toEqual(['token.rotated', 'token.created'])

    const member = await signedUp('rotate-member', { domain })
    await scimClient(fresh)('POST', '/Users', userBody(member.email))
    expect((await member.b.call(`/api/orgs/${orgId}/scim/token/rotate`, { method: 'POST' })).status).toBe(403)
    expect((await member.b.call(`/api/orgs/${orgId}/scim/events`)).status).toBe(403)

    expect((await owner.b.call(`/api/orgs/${orgId}/scim/token/revoke`, { method: 'POST' })).status).toBe(200)
    expect((await scimClient(fresh)('GET', '/Users')).status).toBe(401)
    expect((await owner.b.call(`/api/orgs/${orgId}/scim`)).json.data).toEqual({ connection: null })
  })

  it('provisions only addresses of the organization verified domains: 400 invalidValue otherwise, the same for an address with an account and one without', async () => {
    const { orgId, scim } = await provisionedOrg('foreign')
    // a confirmed account of a domain the organization never proved, and an address nobody has
    const outsider = await signedUp('foreign-person')
    const answers: ScimJson[] = []
    for (const userName of [outsider.email, freshEmail('foreign-nobody')]) {
      const res = await scim('POST', '/Users', userBody(userName))
      expect(res.status, res.text).toBe(400)
      answers.push(res.json)
    }
    expect(answers[0]).toMatchObject({ schemas: [ERROR], scimType: 'invalidValue' })
    expect(answers[1]).toEqual(answers[0])
    expect((await outsider.b.call(`/api/orgs/${orgId}`)).status).toBe(404)
    expect((await scim('GET', '/Users')).json.totalResults).toBe(0)
  })

  it('links an existing account only once its owner confirmed the address: before, 409 uniqueness and no membership', async () => {
    const { orgId, scim, domain } = await provisionedOrg('unconfirmed')
    // whoever signed up with the address holds the password without owning the mailbox
    const squatter = await signedUp('unconfirmed-person', { confirmed: false, domain })
    const refused = await scim('POST', '/Users', userBody(squatter.email))
    expect(refused.status, refused.text).toBe(409)
    expect(refused.json).toMatchObject({ schemas: [ERROR], scimType: 'uniqueness' })
    expect((await squatter.b.call(`/api/orgs/${orgId}`)).status).toBe(404)
    expect((await scim('GET', `/Users?filter=${encodeURIComponent(`userName eq "${squatter.email}"`)}`)).json.totalResults).toBe(0)

    await confirmEmailThrough(squatter.b, stack.iam, squatter.email)
    const linked = await scim('POST', '/Users', userBody(squatter.email))
    expect(linked.status, linked.text).toBe(201)
    expect((await squatter.b.call(`/api/orgs/${orgId}`)).status).toBe(200)
  })

  it('deactivating a signed-in member puts them out of the organization at their next request, and nothing outside it', async () => {
    const { orgId, scim, domain } = await provisionedOrg('promise')
    const person = await signedUp('promise-person', { domain })
    // the person has an organization of their own too
    const ownOrg = await createdOrg(person.b)
    // linking an existing account: a membership, and the account is not renamed
    const linked = await scim('POST', '/Users', userBody(person.email, { displayName: 'Renamed By Provider' }))
    expect(linked.status, linked.text).toBe(201)
    expect((await person.b.call('/api/orgs/active', { method: 'POST', body: { orgId } })).status).toBe(200)
    expect((await person.b.call(`/api/orgs/${orgId}`)).status).toBe(200)
    // a second browser of the same person, not acting for the organization
    const other = browserLike(stack.gateway.url)
    expect((await other.call('/api/auth/login', { method: 'POST', body: { email: person.email, password: PASSWORD } })).status).toBe(200)
    expect((await other.call(`/api/orgs/${orgId}`)).status).toBe(200)

    const off = await scim('PATCH', `/Users/${linked.json.id}`, { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'active', value: 'False' }] })
    expect(off.status, off.text).toBe(200)
    expect(off.json.active).toBe(false)

    // the session acting for the organization is over; the other one is no longer let in
    expect((await person.b.call(`/api/orgs/${orgId}`)).status).toBe(401)
    expect((await other.call(`/api/orgs/${orgId}`)).status).toBe(404)
    expect((await other.call('/api/orgs/active', { method: 'POST', body: { orgId } })).status).toBe(404)
    const listed = (await other.call('/api/orgs')).json.data as { orgs: Array<{ id: string }> }
    expect(listed.orgs.map((o) => o.id)).toEqual([ownOrg])
    // outside the organization, everything goes on: the account, its name, its own organization
    const session = await other.call('/api/auth/session')
    expect(session.json).toMatchObject({ authenticated: true })
    expect(JSON.stringify(session.json)).not.toContain('Renamed By Provider')
    expect((await other.call(`/api/orgs/${ownOrg}`)).status).toBe(200)
    const again = browserLike(stack.gateway.url)
    expect((await again.call('/api/auth/login', { method: 'POST', body: { email: person.email, password: PASSWORD } })).status).toBe(200)

    // filter by active, then reactivate: the person is a member again
    expect((await scim('GET', `/Users?filter=${encodeURIComponent('active eq false')}`)).json.Resources.map((u: { id: string }) => u.id)).toEqual([linked.json.id])
    const on = await scim('PATCH', `/Users/${linked.json.id}`, { schemas: [PATCH_OP], Operations: [{ op: 'replace', value: { active: true } }] })
    expect(on.json.active).toBe(true)
    expect((await again.call(`/api/orgs/${orgId}`)).status).toBe(200)

    // DELETE: out again, and the resource is gone
    expect((await again.call('/api/orgs/active', { method: 'POST', body: { orgId } })).status).toBe(200)
    expect((await scim('DELETE', `/Users/${linked.json.id}`)).status).toBe(204)
    expect((await again.call(`/api/orgs/${orgId}`)).status).toBe(401)
    expect((await other.call(`/api/orgs/${orgId}`)).status).toBe(404)
    expect((await other.call(`/api/orgs/${ownOrg}`)).status).toBe(200)
  })

  it('records the SCIM client address, as the load balancer in front of the gateway saw it, on the provisioned person activity', async () => {
    const { scim, domain } = await provisionedOrg('address')
    const person = await signedUp('address-person', { domain })
    const linked = await scim('POST', '/Users', userBody(person.email), { 'x-forwarded-for': SCIM_CLIENT_IP })
    expect(linked.status, linked.text).toBe(201)
    const own = (await person.b.call('/api/auth/security-events')).json.data as { events: Array<{ type: string; ipAddress: string | null }> }
    const provisioned = own.events.find((e) => e.type === 'org_member_provisioned')
    expect(provisioned?.ipAddress).toBe(SCIM_CLIENT_IP)
  })

  it('refuses to deactivate the last owner of the organization', async () => {
    const { owner, scim } = await provisionedOrg('last-owner')
    const linked = await scim('POST', '/Users', userBody(owner.email))
    expect(linked.status, linked.text).toBe(201)
    const off = await scim('PATCH', `/Users/${linked.json.id}`, { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'active', value: false }] })
    expect(off.json).toMatchObject({ status: '400', scimType: 'mutability' })
    expect((await scim('GET', `/Users/${linked.json.id}`)).json.active).toBe(true)
  })
})
