/**
 * The permission table as the routes apply it, by property: two organizations, three users given
 * random roles in each (built-in and custom), and an outsider. Every organization route answers
 * what the table in this file says (written out here, not imported from the IAM): 403 for a member
 * whose role lacks the permission, the route's own answer for one that holds it, and for the
 * outsider the 404 of an unknown organization. The probes that need a permission name things that
 * do not exist (a member, an invitation, a role), so they change nothing: the holder's answer is
 * that thing's 404, told apart from the organization's by its message.
 */
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, PROXY_CONFIG, type Session } from '../helpers/accounts'
import { mailTo, signupConfirmed } from '../helpers/confirm-email'
import { startIam, type IamServer, type Json } from '../helpers/iam-server'

let iam: IamServer
beforeAll(async () => {
  iam = await startIam({
    config: {
      ...PROXY_CONFIG,
      rate_limiters: { signup: { points: 1000, duration: 60, blockDuration: 60 }, emails: { points: 1000, duration: 60, blockDuration: 60 } },
      anomalies: { velocity: { count: 50 } },
    },
  })
}, 240_000)
afterAll(() => iam?.stop())

const ALL = ['organization:read', 'organization:delete', 'members:read', 'members:manage', 'owners:manage', 'invitations:read', 'invitations:manage', 'roles:read', 'roles:manage']
const CUSTOM = {
  reader: ['organization:read', 'members:read', 'invitations:read'],
  manager: ['organization:read', 'members:read', 'members:manage', 'roles:read', 'roles:manage', 'invitations:manage'],
} as const
/** The table: what each role may do. */
const TABLE: Record<string, readonly string[]> = {
  owner: ALL,
  admin: ALL.filter((p) => p !== 'organization:delete' && p !== 'owners:manage'),
  member: ['organization:read', 'members:read', 'roles:read'],
  ...CUSTOM,
}
type RoleName = keyof typeof TABLE

const NOWHERE = '00000000-0000-4000-8000-0000000000ff'

/** A probe: the route, the permission it needs, and the holder's answer (status, error). */
const PROBES: { method: string; tail: string; body?: Json; needs: string; holder: [number, string?] }[] = [
  { method: 'GET', tail: '', needs: 'organization:read', holder: [200] },
  { method: 'GET', tail: '/members', needs: 'members:read', holder: [200] },
  { method: 'GET', tail: '/invitations', needs: 'invitations:read', holder: [200] },
  { method: 'GET', tail: '/roles', needs: 'roles:read', holder: [200] },
  { method: 'POST', tail: '/members/role', body: { userId: NOWHERE, role: 'member' }, needs: 'members:manage', holder: [404, 'No such member'] },
  { method: 'POST', tail: '/members/remove', body: { userId: NOWHERE }, needs: 'members:manage', holder: [404, 'No such member'] },
  { method: 'POST', tail: '/invitations/revoke', body: { invitationId: NOWHERE }, needs: 'invitations:manage', holder: [404, 'No such pending invitation'] },
  { method: 'POST', tail: '/invitations/resend', body: { invitationId: NOWHERE }, needs: 'invitations:manage', holder: [404, 'No such pending invitation'] },
  { method: 'POST', tail: '/roles/update', body: { roleId: NOWHERE, name: 'renamed', permissions: [] }, needs: 'roles:manage', holder: [404, 'No such role'] },
  { method: 'POST', tail: '/roles/delete', body: { roleId: NOWHERE }, needs: 'roles:manage', holder: [404, 'No such role'] },
]

const authed = (s: Session, method: string, path: string, body?: unknown) =>
  call(iam, method, path, { client: s, cookies: { session: s.refreshToken }, bearer: s.accessToken, body })

let ip = 0
const person = () => signupConfirmed(iam, { dataDir: iam.dataDir }, { client: { ip: `198.51.100.${++ip}` } })

interface Org {
  id: string
  owner: Session
  /** role name => what the route takes (a built-in name, or the custom role's id) */
  roleIds: Record<RoleName, string>
  /** user index => public user id */
  memberIds: string[]
}

let users: Session[]
let outsider: Session
const orgs: Org[] = []

beforeAll(async () => {
  users = [await person(), await person(), await person()]
  outsider = await person()
  for (const tag of ['a', 'b']) {
    const owner = await person()
    const created = await authed(owner, 'POST', '/orgs', { name: `Org ${tag}`, slug: `perm-${tag}-${Date.now().toString(36)}` })
    const id = (((await created.json()) as Json).data as { org: { id: string } }).org.id
    const roleIds: Record<string, string> = { owner: 'owner', admin: 'admin', member: 'member' }
    for (const [name, permissions] of Object.entries(CUSTOM)) {
      const res = await authed(owner, 'POST', `/orgs/${id}/roles`, { name, permissions })
      roleIds[name] = (((await res.json()) as Json).data as { role: { id: string } }).role.id
    }
    for (const user of users) {
      expect((await authed(owner, 'POST', `/orgs/${id}/invitations`, { email: user.email, role: 'member' })).status).toBe(201)
      const mail = await mailTo({ dataDir: iam.dataDir }, user.email, (m) => (m.text ?? '').includes(`Org ${tag} on`))
      const token = /[?&]token=([A-Za-z0-9_-]{43})/.exec(mail.text ?? '')![1]!
      expect((await authed(user, 'POST', '/orgs/invitations/accept', { token })).status).toBe(200)
    }
    const members = (((await (await authed(owner, 'GET', `/orgs/${id}/members`)).json()) as Json).data as { members: { email: string; userId: string }[] }).members
    orgs.push({ id, owner, roleIds: roleIds as Record<RoleName, string>, memberIds: users.map((u) => members.find((m) => m.email === u.email)!.userId) })
  }
}, 120_000)

const answerOf = async (res: Response) => {
  const body = (await res.json()) as Json
  return { status: res.status, error: body.error as string | undefined, code: body.code as string | undefined }
}

describe('organization permissions (property)', () => {
  it('every route answers what the permission table says, for random roles in two organizations', async () => {
    const roleNames = Object.keys(TABLE) as RoleName[]
    const assignment = fc.array(fc.array(fc.constantFrom(...roleNames), { minLength: 3, maxLength: 3 }), { minLength: 2, maxLength: 2 })
    await fc.assert(
      fc.asyncProperty(assignment, async (roles) => {
        for (const [o, org] of orgs.entries()) {
          for (const [u, memberId] of org.memberIds.entries()) {
            const res = await authed(org.owner, 'POST', `/orgs/${org.id}/members/role`, { userId: memberId, role: org.roleIds[roles[o]![u]!] })
            expect(res.status).toBe(200)
          }
        }
        for (const [o, org] of orgs.entries()) {
          for (const [u, user] of users.entries()) {
            const role = roles[o]![u]!
            const held = TABLE[role]!
            for (const probe of PROBES) {
              const got = await answerOf(await authed(user, probe.method, `/orgs/${org.id}${probe.tail}`, probe.body))
              const [status, error] = held.includes(probe.needs) ? probe.holder : [403]
              expect(got.status, `${role} ${probe.method} ${probe.tail}`).toBe(status)
              if (error) expect(got.error).toBe(error)
            }
            // deleting needs organization:delete: only the non-owners are asked (an owner would delete it)
            if (!held.includes('organization:delete')) expect((await authed(user, 'POST', `/orgs/${org.id}/delete`)).status).toBe(403)
            const view = (await authed(user, 'GET', `/orgs/${org.id}`))
            if (held.includes('organization:read')) expect((((await view.json()) as Json).data as { org: { permissions: string[] } }).org.permissions.sort()).toEqual([...held].sort())
          }
          for (const probe of PROBES) {
            const got = await answerOf(await authed(outsider, probe.method, `/orgs/${org.id}${probe.tail}`, probe.body))
            expect(got).toEqual({ status: 404, error: 'No such organization', code: 'org_not_found' })
          }
        }
      }),
      { numRuns: 12 },
    )
  }, 120_000)
})
