/**
 * An impersonating administrator gets no lasting access (docs/administration.md): a session a
 * platform administrator opened on a person's behalf may look at the person's organizations, but
 * not change who belongs to them or what they may do. Before this rule, the administrator could
 * invite their own address as an owner of the customer's organization (201), access that outlived
 * the impersonation's 15 minutes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PROXY_CONFIG, setCookieValue, signupUser, type Session } from '../helpers/accounts'
import { CLOCK_ENV } from '../helpers/clock'
import { startIam, type IamServer, type Json } from '../helpers/iam-server'
import { authed, WIDE_LOGIN } from './second-factor-http'

let iam: IamServer
let admin: Session
let owner: Session
let orgId: string
let asOwner: Session

const bodyOf = async (res: Response) => (await res.json()) as Json

beforeAll(async () => {
  iam = await startIam({ config: { ...PROXY_CONFIG, ...WIDE_LOGIN }, env: CLOCK_ENV })
  admin = await signupUser(iam, { client: { ip: '203.0.113.231' } })
  const granted = await fetch(`${iam.url}/__test/platform-admin`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: admin.email, admin: true }) })
  expect(granted.status).toBe(200)
  owner = await signupUser(iam, { client: { ip: '203.0.113.232' } })
  const created = await authed(iam, owner, 'POST', '/orgs', { name: 'Customer Works', slug: `customer-${Date.now().toString(36)}` })
  expect(created.status).toBe(201)
  orgId = ((await bodyOf(created)).data as { org: { id: string } }).org.id
  const found = ((await bodyOf(await authed(iam, admin, 'GET', `/admin/users?q=${encodeURIComponent(owner.email)}`))).data as { users: Array<{ id: string }> }).users[0]!
  const res = await authed(iam, admin, 'POST', `/admin/users/${found.id}/impersonate`)
  const body = await bodyOf(res)
  expect(res.status, JSON.stringify(body)).toBe(200)
  asOwner = { ...admin, accessToken: body.accessToken as string, refreshToken: setCookieValue(res, 'session')! }
}, 180_000)
afterAll(() => iam?.stop())

describe("an impersonated session in the person's organizations", () => {
  it('cannot invite anyone, not even as a member, and no invitation is left behind', async () => {
    for (const role of ['owner', 'member']) {
      const res = await authed(iam, asOwner, 'POST', `/orgs/${orgId}/invitations`, { email: admin.email, role })
      const body = await bodyOf(res)
      expect(res.status, JSON.stringify(body)).toBe(403)
      expect(body).toMatchObject({ ok: false, impersonated: true })
    }
    const pending = await bodyOf(await authed(iam, owner, 'GET', `/orgs/${orgId}/invitations`))
    expect(JSON.stringify(pending)).not.toContain(admin.email)
  })

  it('cannot change roles, create roles, remove members, leave, delete, or create an organization as the person', async () => {
    const refused: Array<[string, string, unknown]> = [
      ['POST', `/orgs/${orgId}/members/role`, { userId: '00000000-0000-4000-8000-000000000000', role: 'owner' }],
      ['POST', `/orgs/${orgId}/members/remove`, { userId: '00000000-0000-4000-8000-000000000000' }],
      ['POST', `/orgs/${orgId}/roles`, { name: 'Backdoor', permissions: ['members:write'] }],
      ['POST', `/orgs/${orgId}/leave`, undefined],
      ['POST', `/orgs/${orgId}/delete`, undefined],
      ['POST', '/orgs', { name: 'Made by the admin', slug: `admin-made-${Date.now().toString(36)}` }],
    ]
    for (const [method, path, body] of refused) {
      const res = await authed(iam, asOwner, method, path, body)
      const answer = await bodyOf(res)
      expect(res.status, `${path}: ${JSON.stringify(answer)}`).toBe(403)
      expect(answer, path).toMatchObject({ impersonated: true })
    }
  })

  it("still reads the person's organizations and members", async () => {
    expect((await authed(iam, asOwner, 'GET', '/orgs')).status).toBe(200)
    expect((await authed(iam, asOwner, 'GET', `/orgs/${orgId}/members`)).status).toBe(200)
  })
})
