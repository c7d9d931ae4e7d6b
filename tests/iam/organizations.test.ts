/**
 * Organizations over HTTP (iam/features/organizations, docs/organizations.md): creation, the last
 * owner rule (also under a race of two owners demoting each other), invitations (single use, bound
 * to the invited address, expiring after 7 days of the IAM's clock), custom roles, the active
 * organization's `org` claim in access tokens, and a foreign organization answering exactly like an
 * unknown one, and a sign-up from an invitation link counting its address as confirmed. Its own IAM:
 * the file moves the clock.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join as joinPath } from 'node:path'
import { simpleParser } from 'mailparser'
import { applyRefresh, call, newDevice, PROXY_CONFIG, refresh, setCookieValue, signupBody, uniqueEmail, type Session } from '../helpers/accounts'
import { advanceClock, CLOCK_ENV } from '../helpers/clock'
import { mailTo, signupConfirmed } from '../helpers/confirm-email'
import { startIam, type IamServer, type Json } from '../helpers/iam-server'
import { isVerificationMail, recipients } from '../helpers/smtp'

let iam: IamServer
beforeAll(async () => {
  iam = await startIam({
    config: {
      ...PROXY_CONFIG,
      rate_limiters: { signup: { points: 1000, duration: 60, blockDuration: 60 }, emails: { points: 1000, duration: 60, blockDuration: 60 } },
      // the expiry test moves the clock 7 days: a session idle that long would be asked for the emailed code
      anomalies: { velocity: { count: 50 }, idleMs: 30 * 24 * 3_600_000 },
    },
    env: CLOCK_ENV,
  })
}, 240_000)
afterAll(() => iam?.stop())

let ip = 0
const person = () => signupConfirmed(iam, { dataDir: iam.dataDir }, { client: { ip: `198.51.100.${++ip}` }, remember: true })

const authed = (s: Session, method: string, path: string, body?: unknown) =>
  call(iam, method, path, { client: s, cookies: { session: s.refreshToken }, bearer: s.accessToken, body })
const data = async (res: Response) => ((await res.json()) as { data: Json }).data

const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as Json

let slugs = 0
async function newOrg(owner: Session, name = 'Acme'): Promise<{ id: string; slug: string }> {
  const res = await authed(owner, 'POST', '/orgs', { name, slug: `acme-${Date.now().toString(36)}-${++slugs}` })
  expect(res.status).toBe(201)
  return (await data(res)).org as { id: string; slug: string }
}

/** The public id of a member (GET /orgs/:orgId/members as `viewer`). */
async function memberId(viewer: Session, orgId: string, email: string): Promise<string> {
  const members = (await data(await authed(viewer, 'GET', `/orgs/${orgId}/members`))).members as { email: string; userId: string }[]
  return members.find((m) => m.email === email)!.userId
}

async function invitationToken(email: string, after = ''): Promise<string> {
  const mail = await mailTo({ dataDir: iam.dataDir }, email, (m) => /invited you to join/.test(m.text ?? '') && !(m.text ?? '').includes(after || '\u0000'))
  return /[?&]token=([A-Za-z0-9_-]{43})/.exec(mail.text ?? '')![1]!
}

/** `invitee` joins `orgId` with `role`, invited by `owner`. */
async function join(owner: Session, orgId: string, invitee: Session, role = 'member'): Promise<void> {
  const invited = await authed(owner, 'POST', `/orgs/${orgId}/invitations`, { email: invitee.email, role })
  expect(invited.status).toBe(201)
  const accepted = await authed(invitee, 'POST', '/orgs/invitations/accept', { token: await invitationToken(invitee.email) })
  expect(accepted.status).toBe(200)
}

const ownersOf = async (viewer: Session, orgId: string) =>
  ((await data(await authed(viewer, 'GET', `/orgs/${orgId}/members`))).members as { role: string }[]).filter((m) => m.role === 'owner').length

describe('organizations', () => {
  it('makes the creator the owner, lists it as theirs, refuses a taken slug', async () => {
    const ann = await person()
    const org = await newOrg(ann, 'Ann Corp')
    const mine = (await data(await authed(ann, 'GET', '/orgs'))).orgs as Json[]
    expect(mine).toEqual([{ id: org.id, slug: org.slug, name: 'Ann Corp', role: 'owner', roleName: 'owner' }])
    const one = await data(await authed(ann, 'GET', `/orgs/${org.id}`))
    expect(one.org).toMatchObject({ id: org.id, role: 'owner', permissions: expect.arrayContaining(['organization:delete', 'owners:manage']) })
    expect((await authed(ann, 'POST', '/orgs', { name: 'Again', slug: org.slug })).status).toBe(409)
    expect((await authed(ann, 'POST', '/orgs', { name: 'Extra', slug: 'extra-field-org', plan: 'pro' })).status).toBe(400)
  })

  it('answers a foreign organization exactly like an unknown one, on every route naming one', async () => {
    const [ann, eve] = [await person(), await person()]
    const org = await newOrg(ann)
    const unknown = '00000000-0000-4000-8000-000000000001'
    const probes: [string, string, unknown?][] = [
      ['GET', ''],
      ['GET', '/members'],
      ['GET', '/invitations'],
      ['GET', '/roles'],
      ['POST', '/members/role', { userId: unknown, role: 'member' }],
      ['POST', '/members/remove', { userId: unknown }],
      ['POST', '/leave'],
      ['POST', '/delete'],
      ['POST', '/invitations', { email: 'x@example.com', role: 'member' }],
      ['POST', '/invitations/revoke', { invitationId: unknown }],
      ['POST', '/invitations/resend', { invitationId: unknown }],
      ['POST', '/roles', { name: 'r', permissions: [] }],
      ['POST', '/roles/update', { roleId: unknown, name: 'r', permissions: [] }],
      ['POST', '/roles/delete', { roleId: unknown }],
    ]
    const answer = async (id: string, [method, tail, body]: (typeof probes)[number]) => {
      const res = await authed(eve, method, `/orgs/${id}${tail}`, body)
      const { date: _date, ...rest } = (await res.json()) as Json
      return { status: res.status, body: rest }
    }
    for (const probe of probes) {
      const foreign = await answer(org.id, probe)
      expect(foreign.status, `${probe[0]} ${probe[1]}`).toBe(404)
      expect(foreign, `${probe[0]} ${probe[1]}`).toEqual(await answer(unknown, probe))
    }
    const active = async (orgId: string) => {
      const res = await authed(eve, 'POST', '/orgs/active', { orgId })
      const { date: _date, ...rest } = (await res.json()) as Json
      return { status: res.status, body: rest }
    }
    expect(await active(org.id)).toEqual(await active(unknown))
    // and the organization is untouched
    expect((await data(await authed(ann, 'GET', `/orgs/${org.id}`))).org).toMatchObject({ id: org.id })
  })

  it('keeps the last owner: no leaving, demotion or removal of the only owner', async () => {
    const ann = await person()
    const org = await newOrg(ann)
    const annId = await memberId(ann, org.id, ann.email)
    expect((await authed(ann, 'POST', `/orgs/${org.id}/leave`)).status).toBe(409)
    expect((await authed(ann, 'POST', `/orgs/${org.id}/members/role`, { userId: annId, role: 'admin' })).status).toBe(409)
    expect((await authed(ann, 'POST', `/orgs/${org.id}/members/remove`, { userId: annId })).status).toBe(409)
    expect(await ownersOf(ann, org.id)).toBe(1)
  })

  it('leaves one owner when two owners demote each other at the same moment', async () => {
    for (let round = 0; round < 3; round++) {
      const [ann, bob] = [await person(), await person()]
      const org = await newOrg(ann)
      await join(ann, org.id, bob, 'owner')
      const [annId, bobId] = [await memberId(ann, org.id, ann.email), await memberId(ann, org.id, bob.email)]
      const [a, b] = await Promise.all([
        authed(ann, 'POST', `/orgs/${org.id}/members/role`, { userId: bobId, role: 'member' }),
        authed(bob, 'POST', `/orgs/${org.id}/members/role`, { userId: annId, role: 'member' }),
      ])
      const statuses = [a.status, b.status].sort()
      // one wins; the other is no longer an owner (403) by the time its transaction holds the lock
      expect(statuses).toEqual([200, 403])
      const viewer = a.status === 200 ? ann : bob
      expect(await ownersOf(viewer, org.id)).toBe(1)
    }
  })

  it('counts no suspended owner as one who can act: the other owner can neither leave nor step down, and the refusal says to make another owner first', async () => {
    const [ann, bob, admin] = [await person(), await person(), await person()]
    const granted = await fetch(`${iam.url}/__test/platform-admin`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: admin.email, admin: true }) })
    expect(granted.status).toBe(200)
    const org = await newOrg(ann)
    await join(ann, org.id, bob, 'owner')
    const [annId, bobId] = [await memberId(ann, org.id, ann.email), await memberId(ann, org.id, bob.email)]
    // the members list names people by their public id, the one the admin routes take
    const ban = await authed(admin, 'POST', `/admin/users/${bobId}/ban`, { reason: 'Under review', durationMs: 86_400_000 })
    expect(ban.status, await ban.clone().text()).toBe(200)
    const leave = await authed(ann, 'POST', `/orgs/${org.id}/leave`)
    expect(leave.status).toBe(409)
    expect(await leave.json()).toMatchObject({ code: 'last_owner', error: expect.stringMatching(/make another member an owner first/) })
    const stepDown = await authed(ann, 'POST', `/orgs/${org.id}/members/role`, { userId: annId, role: 'member' })
    expect(stepDown.status).toBe(409)
    expect(await stepDown.json()).toMatchObject({ code: 'last_owner' })
    // the suspended owner may be demoted: the one who can act stays
    expect((await authed(ann, 'POST', `/orgs/${org.id}/members/role`, { userId: bobId, role: 'member' })).status).toBe(200)
    expect(await ownersOf(ann, org.id)).toBe(1)
  })

  it('lets an owner leave once another owner exists; an admin cannot touch owners', async () => {
    const [ann, bob, cid] = [await person(), await person(), await person()]
    const org = await newOrg(ann)
    await join(ann, org.id, bob, 'admin')
    await join(ann, org.id, cid)
    const [annId, cidId] = [await memberId(ann, org.id, ann.email), await memberId(ann, org.id, cid.email)]
    expect((await authed(bob, 'POST', `/orgs/${org.id}/members/role`, { userId: annId, role: 'member' })).status).toBe(403)
    expect((await authed(bob, 'POST', `/orgs/${org.id}/members/role`, { userId: cidId, role: 'owner' })).status).toBe(403)
    expect((await authed(bob, 'POST', `/orgs/${org.id}/delete`)).status).toBe(403)
    // nor invite an owner, nor prolong an owner's invitation
    expect((await authed(bob, 'POST', `/orgs/${org.id}/invitations`, { email: 'future.owner@example.com', role: 'owner' })).status).toBe(403)
    const ownerInvite = (await data(await authed(ann, 'POST', `/orgs/${org.id}/invitations`, { email: 'future.owner@example.com', role: 'owner' }))).invitation as Json
    expect((await authed(bob, 'POST', `/orgs/${org.id}/invitations/resend`, { invitationId: ownerInvite.id })).status).toBe(404)
    expect((await authed(ann, 'POST', `/orgs/${org.id}/invitations/resend`, { invitationId: ownerInvite.id })).status).toBe(200)
    expect((await authed(bob, 'POST', `/orgs/${org.id}/members/role`, { userId: cidId, role: 'admin' })).status).toBe(200)
    // a member reads, and manages nothing
    expect((await authed(cid, 'GET', `/orgs/${org.id}/members`)).status).toBe(200)
    expect((await authed(ann, 'POST', `/orgs/${org.id}/members/role`, { userId: cidId, role: 'owner' })).status).toBe(200)
    expect((await authed(ann, 'POST', `/orgs/${org.id}/leave`)).status).toBe(200)
    expect((await authed(ann, 'GET', `/orgs/${org.id}`)).status).toBe(404)
    expect((await authed(cid, 'POST', `/orgs/${org.id}/members/remove`, { userId: await memberId(cid, org.id, bob.email) })).status).toBe(200)
    expect((await authed(bob, 'GET', `/orgs/${org.id}`)).status).toBe(404)
    expect((await authed(cid, 'POST', `/orgs/${org.id}/delete`)).status).toBe(200)
    expect((await authed(cid, 'GET', `/orgs/${org.id}`)).status).toBe(404)
  })
})

describe('invitations', () => {
  it('are single use and bound to the invited address', async () => {
    const [ann, bob, eve] = [await person(), await person(), await person()]
    const org = await newOrg(ann)
    const invited = await authed(ann, 'POST', `/orgs/${org.id}/invitations`, { email: bob.email.toUpperCase(), role: 'member' })
    expect(invited.status).toBe(201)
    expect((await data(invited)).invitation).toMatchObject({ email: bob.email.toLowerCase(), role: 'member', status: 'pending' })
    const token = await invitationToken(bob.email)
    const other = await authed(eve, 'POST', '/orgs/invitations/accept', { token })
    expect(other.status).toBe(403)
    expect((await authed(eve, 'GET', `/orgs/${org.id}`)).status).toBe(404)
    const accepted = await authed(bob, 'POST', '/orgs/invitations/accept', { token })
    expect(accepted.status).toBe(200)
    expect((await data(accepted)).org).toEqual({ id: org.id, slug: org.slug, name: 'Acme', role: 'member' })
    expect((await authed(bob, 'POST', '/orgs/invitations/accept', { token })).status).toBe(410)
    expect((await authed(bob, 'POST', '/orgs/invitations/accept', { token: 'A'.repeat(43) })).status).toBe(404)
    const list = (await data(await authed(ann, 'GET', `/orgs/${org.id}/invitations`))).invitations as Json[]
    expect(list.map((i) => i.status)).toEqual(['accepted'])
    // an address that is a member already is not invited again
    expect((await authed(ann, 'POST', `/orgs/${org.id}/invitations`, { email: bob.email, role: 'member' })).status).toBe(409)
  })

  it('is accepted once when two accepts race', async () => {
    const [ann, bob] = [await person(), await person()]
    const org = await newOrg(ann)
    expect((await authed(ann, 'POST', `/orgs/${org.id}/invitations`, { email: bob.email, role: 'member' })).status).toBe(201)
    const token = await invitationToken(bob.email)
    const answers = await Promise.all([1, 2, 3].map(() => authed(bob, 'POST', '/orgs/invitations/accept', { token })))
    expect(answers.map((r) => r.status).sort()).toEqual([200, 410, 410])
    const events = (await data(await authed(bob, 'GET', '/auth/security-events'))) as Json
    const joined = JSON.stringify(events).match(/org_invitation_accepted/g) ?? []
    expect(joined).toHaveLength(1)
  })

  it('preview tells the holder of a pending link what it is for, without signing in, and nothing for a used or unknown one', async () => {
    const [ann, bob] = [await person(), await person()]
    const org = await newOrg(ann, 'Preview Org')
    expect((await authed(ann, 'POST', `/orgs/${org.id}/invitations`, { email: bob.email, role: 'member' })).status).toBe(201)
    const token = await invitationToken(bob.email)
    const preview = (path: string) => call(iam, 'GET', path, { client: { ip: '203.0.113.9', ua: 'Mozilla/5.0 (X11; Linux x86_64) Chrome/140.0' } })
    const res = await preview(`/orgs/invitations/preview?token=${token}`)
    expect(res.status).toBe(200)
    const at = bob.email.lastIndexOf('@')
    expect((await data(res)).invitation).toEqual({ orgName: 'Preview Org', inviterName: expect.any(String), email: `${bob.email[0]}***${bob.email.slice(at)}`, invitedEmail: bob.email.toLowerCase(), expiresAt: expect.any(String) })
    expect((await preview(`/orgs/invitations/preview?token=${'A'.repeat(43)}`)).status).toBe(404)
    expect((await preview('/orgs/invitations/preview?token=short')).status).toBe(400)
    expect((await authed(bob, 'POST', '/orgs/invitations/accept', { token })).status).toBe(200)
    const used = await preview(`/orgs/invitations/preview?token=${token}`)
    expect(used.status).toBe(410)
    expect(await used.text()).not.toContain('Preview Org')
  })

  it('revoke ends a link; resend replaces it', async () => {
    const [ann, bob] = [await person(), await person()]
    const org = await newOrg(ann)
    const first = (await data(await authed(ann, 'POST', `/orgs/${org.id}/invitations`, { email: bob.email, role: 'member' }))).invitation as Json
    const oldToken = await invitationToken(bob.email)
    const resent = await authed(ann, 'POST', `/orgs/${org.id}/invitations/resend`, { invitationId: first.id })
    expect(resent.status).toBe(200)
    const newToken = await invitationToken(bob.email, oldToken)
    expect(newToken).not.toBe(oldToken)
    expect((await authed(bob, 'POST', '/orgs/invitations/accept', { token: oldToken })).status).toBe(404)
    expect((await authed(ann, 'POST', `/orgs/${org.id}/invitations/revoke`, { invitationId: first.id })).status).toBe(200)
    expect((await authed(ann, 'POST', `/orgs/${org.id}/invitations/revoke`, { invitationId: first.id })).status).toBe(404)
    expect((await authed(bob, 'POST', '/orgs/invitations/accept', { token: newToken })).status).toBe(410)
  })
})

describe('custom roles', () => {
  it('grant what they list, and no more than their creator may hand out', async () => {
    const [ann, bob, cid] = [await person(), await person(), await person()]
    const org = await newOrg(ann)
    expect((await authed(ann, 'POST', `/orgs/${org.id}/roles`, { name: 'boss', permissions: ['organization:delete'] })).status).toBe(400)
    expect((await authed(ann, 'POST', `/orgs/${org.id}/roles`, { name: 'Admin', permissions: [] })).status).toBe(400)
    const created = await authed(ann, 'POST', `/orgs/${org.id}/roles`, {
      name: 'recruiter',
      permissions: ['organization:read', 'members:read', 'roles:read', 'invitations:read', 'invitations:manage', 'billing:read'],
    })
    expect(created.status).toBe(201)
    const role = (await data(created)).role as { id: string }
    expect((await authed(ann, 'POST', `/orgs/${org.id}/roles`, { name: 'recruiter', permissions: [] })).status).toBe(409)
    await join(ann, org.id, bob, role.id)
    const bobOrg = (await data(await authed(bob, 'GET', `/orgs/${org.id}`))).org as Json
    expect(bobOrg).toMatchObject({ role: role.id, roleName: 'recruiter' })
    // what the role lists (a member's permissions are all in it, so it may invite members)
    expect((await authed(bob, 'GET', `/orgs/${org.id}/invitations`)).status).toBe(200)
    expect((await authed(bob, 'POST', `/orgs/${org.id}/invitations`, { email: cid.email, role: 'member' })).status).toBe(201)
    // and nothing else
    expect((await authed(bob, 'POST', `/orgs/${org.id}/roles`, { name: 'x', permissions: [] })).status).toBe(403)
    expect((await authed(bob, 'POST', `/orgs/${org.id}/members/remove`, { userId: await memberId(ann, org.id, ann.email) })).status).toBe(403)
    // inviting with a role that carries more than the recruiter holds
    expect((await authed(bob, 'POST', `/orgs/${org.id}/invitations`, { email: cid.email, role: 'admin' })).status).toBe(403)
    // a role without what members hold cannot be handed out by it either
    const narrow = (await data(await authed(ann, 'POST', `/orgs/${org.id}/roles`, { name: 'viewer', permissions: ['organization:read'] }))).role as { id: string }
    await join(ann, org.id, cid, narrow.id)
    expect((await authed(cid, 'GET', `/orgs/${org.id}/members`)).status).toBe(403)
    expect((await authed(cid, 'GET', `/orgs/${org.id}`)).status).toBe(200)
    // a held role is not deleted; an unused one is
    expect((await authed(ann, 'POST', `/orgs/${org.id}/roles/delete`, { roleId: role.id })).status).toBe(409)
    const unused = (await data(await authed(ann, 'POST', `/orgs/${org.id}/roles`, { name: 'unused', permissions: [] }))).role as { id: string }
    expect((await authed(ann, 'POST', `/orgs/${org.id}/roles/delete`, { roleId: unused.id })).status).toBe(200)
    const names = ((await data(await authed(ann, 'GET', `/orgs/${org.id}/roles`))).roles as { name: string }[]).map((r) => r.name)
    expect(names).toEqual(['recruiter', 'viewer'])
  })
})

describe('editing a custom role', () => {
  it('renames it and replaces its permissions; its holder\'s next token carries the change', async () => {
    const [ann, bob] = [await person(), await person()]
    const org = await newOrg(ann)
    const role = (await data(await authed(ann, 'POST', `/orgs/${org.id}/roles`, { name: 'viewer', permissions: ['organization:read'] }))).role as { id: string }
    await authed(ann, 'POST', `/orgs/${org.id}/roles`, { name: 'other', permissions: [] })
    await join(ann, org.id, bob, role.id)
    const set = await authed(bob, 'POST', '/orgs/active', { orgId: org.id })
    let s: Session = { ...bob, accessToken: ((await set.json()) as Json).accessToken as string, refreshToken: setCookieValue(set, 'session')! }
    expect(claimsOf(s.accessToken).org).toMatchObject({ role: 'viewer', permissions: ['organization:read'] })
    expect((await authed(s, 'GET', `/orgs/${org.id}/members`)).status).toBe(403)

    const updated = await authed(ann, 'POST', `/orgs/${org.id}/roles/update`, { roleId: role.id, name: 'reader', permissions: ['members:read', 'organization:read', 'billing:read'] })
    expect(updated.status).toBe(200)
    expect((await data(updated)).role).toMatchObject({ id: role.id, name: 'reader', permissions: ['billing:read', 'members:read', 'organization:read'] })
    expect((await authed(s, 'GET', `/orgs/${org.id}/members`)).status).toBe(200)
    s = await applyRefresh(s, await refresh(iam, s))
    expect(claimsOf(s.accessToken).org).toMatchObject({ role: 'reader', permissions: ['billing:read', 'members:read', 'organization:read'] })

    // another role's name, an owner-only permission, an unknown role: refused, nothing changed
    expect((await authed(ann, 'POST', `/orgs/${org.id}/roles/update`, { roleId: role.id, name: 'other', permissions: [] })).status).toBe(409)
    expect((await authed(ann, 'POST', `/orgs/${org.id}/roles/update`, { roleId: role.id, name: 'reader', permissions: ['owners:manage'] })).status).toBe(400)
    expect((await authed(ann, 'POST', `/orgs/${org.id}/roles/update`, { roleId: '00000000-0000-4000-8000-000000000002', name: 'x', permissions: [] })).status).toBe(404)
    const roles = (await data(await authed(ann, 'GET', `/orgs/${org.id}/roles`))).roles as { name: string; permissions: string[] }[]
    expect(roles.map((r) => [r.name, r.permissions])).toEqual([['reader', ['billing:read', 'members:read', 'organization:read']], ['other', []]])
  })

  it('needs roles:manage and the power to hand out the role both as it was and as it becomes', async () => {
    const [ann, bob] = [await person(), await person()]
    const org = await newOrg(ann)
    const editor = (await data(
      await authed(ann, 'POST', `/orgs/${org.id}/roles`, { name: 'editor', permissions: ['organization:read', 'members:read', 'roles:read', 'roles:manage'] }),
    )).role as { id: string }
    const wide = (await data(await authed(ann, 'POST', `/orgs/${org.id}/roles`, { name: 'wide', permissions: ['invitations:manage'] }))).role as { id: string }
    const narrow = (await data(await authed(ann, 'POST', `/orgs/${org.id}/roles`, { name: 'narrow', permissions: ['organization:read'] }))).role as { id: string }
    await join(ann, org.id, bob, editor.id)
    const edit = (roleId: string, name: string, permissions: string[]) => authed(bob, 'POST', `/orgs/${org.id}/roles/update`, { roleId, name, permissions })
    // a role that carries more than the editor holds: not reached
    expect((await edit(wide.id, 'wide', [])).status).toBe(403)
    // a role within reach, but not made to carry more than the editor holds
    expect((await edit(narrow.id, 'narrow', ['organization:read', 'invitations:manage'])).status).toBe(403)
    expect((await edit(narrow.id, 'narrower', ['members:read'])).status).toBe(200)
    // a member without roles:manage
    expect((await authed(ann, 'POST', `/orgs/${org.id}/members/role`, { userId: await memberId(ann, org.id, bob.email), role: 'member' })).status).toBe(200)
    expect((await edit(narrow.id, 'narrow', [])).status).toBe(403)
  })
})

describe('managing members with a custom role', () => {
  it('touches only members whose role it could hand out itself', async () => {
    const [ann, bob, cid, dan] = [await person(), await person(), await person(), await person()]
    const org = await newOrg(ann)
    const manager = (await data(
      await authed(ann, 'POST', `/orgs/${org.id}/roles`, { name: 'manager', permissions: ['organization:read', 'members:read', 'roles:read', 'members:manage'] }),
    )).role as { id: string }
    await join(ann, org.id, bob, manager.id)
    await join(ann, org.id, cid, 'admin')
    await join(ann, org.id, dan)
    const [cidId, danId] = [await memberId(ann, org.id, cid.email), await memberId(ann, org.id, dan.email)]
    // an admin holds more than the manager: not demoted, not removed, not made
    expect((await authed(bob, 'POST', `/orgs/${org.id}/members/role`, { userId: cidId, role: 'member' })).status).toBe(403)
    expect((await authed(bob, 'POST', `/orgs/${org.id}/members/remove`, { userId: cidId })).status).toBe(403)
    expect((await authed(bob, 'POST', `/orgs/${org.id}/members/role`, { userId: danId, role: 'admin' })).status).toBe(403)
    // a member is within its reach
    expect((await authed(bob, 'POST', `/orgs/${org.id}/members/role`, { userId: danId, role: manager.id })).status).toBe(200)
    expect((await authed(bob, 'POST', `/orgs/${org.id}/members/remove`, { userId: danId })).status).toBe(200)
    expect((await authed(dan, 'GET', `/orgs/${org.id}`)).status).toBe(404)
    // an admin may touch another admin, never an owner
    expect((await authed(cid, 'POST', `/orgs/${org.id}/members/role`, { userId: await memberId(ann, org.id, bob.email), role: 'admin' })).status).toBe(200)
    expect((await authed(bob, 'POST', `/orgs/${org.id}/members/role`, { userId: cidId, role: 'member' })).status).toBe(200)
  })
})

describe('active organization', () => {
  it('puts the org claim in the answer\'s access token and in every refresh after it, until cleared', async () => {
    const [ann, eve] = [await person(), await person()]
    const org = await newOrg(ann)
    const set = await authed(ann, 'POST', '/orgs/active', { orgId: org.id })
    expect(set.status).toBe(200)
    const body = (await set.json()) as Json
    const claim = { id: org.id, slug: org.slug, role: 'owner', permissions: expect.arrayContaining(['organization:delete']) }
    expect(body.org).toEqual(claim)
    expect(claimsOf(body.accessToken as string).org).toEqual(claim)
    let s: Session = { ...ann, accessToken: body.accessToken as string, refreshToken: setCookieValue(set, 'session')! }
    s = await applyRefresh(s, await refresh(iam, s))
    expect(claimsOf(s.accessToken).org).toEqual(claim)
    // not a member: refused, the session keeps its organization
    expect((await authed(eve, 'POST', '/orgs/active', { orgId: org.id })).status).toBe(404)
    const cleared = await authed(s, 'POST', '/orgs/active', { orgId: null })
    expect(cleared.status).toBe(200)
    const after = (await cleared.json()) as Json
    expect(after.org).toBeNull()
    expect(claimsOf(after.accessToken as string).org).toBeUndefined()
    s = { ...s, accessToken: after.accessToken as string, refreshToken: setCookieValue(cleared, 'session')! }
    s = await applyRefresh(s, await refresh(iam, s))
    expect(claimsOf(s.accessToken).org).toBeUndefined()
  })

  it('drops the claim of a member who was removed', async () => {
    const [ann, bob] = [await person(), await person()]
    const org = await newOrg(ann)
    await join(ann, org.id, bob)
    const set = await authed(bob, 'POST', '/orgs/active', { orgId: org.id })
    let s: Session = { ...bob, accessToken: ((await set.json()) as Json).accessToken as string, refreshToken: setCookieValue(set, 'session')! }
    expect(claimsOf(s.accessToken).org).toMatchObject({ role: 'member', permissions: ['organization:read', 'members:read', 'roles:read'] })
    expect((await authed(ann, 'POST', `/orgs/${org.id}/members/remove`, { userId: await memberId(ann, org.id, bob.email) })).status).toBe(200)
    s = await applyRefresh(s, await refresh(iam, s))
    expect(claimsOf(s.accessToken).org).toBeUndefined()
  })
})

/** POST /signup from a new device, with `extra` fields (the invitation token): the session and the 201 body. */
async function signupWith(email: string, extra: Json): Promise<{ session: Session; body: Json }> {
  const client = await newDevice(iam, { ip: `198.51.100.${++ip}` })
  const res = await call(iam, 'POST', '/signup', { client, body: signupBody(email, undefined, extra) })
  const body = (await res.json()) as Json
  expect(res.status, JSON.stringify(body)).toBe(201)
  return { session: { ...client, email, password: '', accessToken: body.accessToken as string, refreshToken: setCookieValue(res, 'session')! }, body }
}

const emailVerified = async (s: Session) => ((await (await authed(s, 'GET', '/secret/accesstoken/metadata')).json()) as Json).emailVerified

/** The verification mails in the outbox addressed to `email`. */
async function verificationMailsTo(email: string): Promise<number> {
  const dir = joinPath(iam.dataDir, 'mail')
  if (!existsSync(dir)) return 0
  let count = 0
  for (const name of readdirSync(dir).filter((n) => n.endsWith('.eml'))) {
    const mail = await simpleParser(readFileSync(joinPath(dir, name)))
    if (recipients(mail).includes(email) && isVerificationMail(mail)) count++
  }
  return count
}

/** `owner` invites a new address to a new organization: the address and the mailed token. */
async function invitedStranger(owner: Session, org: { id: string }, tag: string): Promise<{ email: string; token: string }> {
  const email = uniqueEmail(tag)
  expect((await authed(owner, 'POST', `/orgs/${org.id}/invitations`, { email, role: 'member' })).status).toBe(201)
  return { email, token: await invitationToken(email) }
}

describe('sign-up from an invitation link', () => {
  it('counts the address as confirmed when the token invites this very address, sends no confirmation mail, and leaves the invitation to be accepted once', async () => {
    const ann = await person()
    const org = await newOrg(ann, 'Signup Org')
    const { email, token } = await invitedStranger(ann, org, 'invitee')
    // the address typed in another case than the invitation stores it
    const { session: bob, body } = await signupWith(email.toUpperCase(), { invitationToken: token })
    expect(Object.keys(body).sort()).not.toContain('emailVerified')
    expect(await emailVerified(bob)).toBe(true)
    const events = JSON.stringify(await data(await authed(bob, 'GET', '/auth/security-events')))
    expect(events).toContain('"emailConfirmedBy":"invitation"')
    // the invitation is still pending: accepting it is its own step, and works once
    expect(((await data(await authed(ann, 'GET', `/orgs/${org.id}/invitations`))).invitations as Json[]).map((i) => i.status)).toEqual(['pending'])
    expect((await authed(bob, 'POST', '/orgs/invitations/accept', { token })).status).toBe(200)
    expect((await authed(bob, 'POST', '/orgs/invitations/accept', { token })).status).toBe(410)
    // a later mail to the address has arrived, and still no confirmation mail before it
    const other = await newOrg(ann, 'Later Org')
    await invitedStrangerMail(ann, other, email)
    expect(await verificationMailsTo(email)).toBe(0)
  })

  it('leaves the address unconfirmed and mails the confirmation, with the same answer, for a token of another address, an unknown, a revoked or an accepted one', async () => {
    const [ann, cid] = [await person(), await person()]
    const org = await newOrg(ann)
    const foreign = await invitedStranger(ann, org, 'foreign')
    const revoked = await invitedStranger(ann, org, 'revoked')
    const revokedId = (((await data(await authed(ann, 'GET', `/orgs/${org.id}/invitations`))).invitations as Json[]).find((i) => i.email === revoked.email)!).id
    expect((await authed(ann, 'POST', `/orgs/${org.id}/invitations/revoke`, { invitationId: revokedId })).status).toBe(200)
    expect((await authed(ann, 'POST', `/orgs/${org.id}/invitations`, { email: cid.email, role: 'member' })).status).toBe(201)
    const used = await invitationToken(cid.email)
    expect((await authed(cid, 'POST', '/orgs/invitations/accept', { token: used })).status).toBe(200)
    const cases: [string, string][] = [
      [uniqueEmail('other'), foreign.token],
      [uniqueEmail('unknown'), 'A'.repeat(43)],
      [revoked.email, revoked.token],
    ]
    for (const [email, token] of cases) {
      const { session, body } = await signupWith(email, { invitationToken: token })
      expect(Object.keys(body).sort(), email).toEqual(Object.keys((await signupWith(uniqueEmail('plain'), {})).body).sort())
      expect(await emailVerified(session), email).toBe(false)
      await mailTo({ dataDir: iam.dataDir }, email, isVerificationMail)
      expect(JSON.stringify(await data(await authed(session, 'GET', '/auth/security-events')))).not.toContain('emailConfirmedBy')
    }
    // the accepted invitation's address has an account already: that answer is the one without a token too
    const taken = await call(iam, 'POST', '/signup', { client: await newDevice(iam), body: signupBody(cid.email, undefined, { invitationToken: used }) })
    expect(taken.status).toBe(409)
    // a used token for a new address changes nothing either
    const { session } = await signupWith(uniqueEmail('after-use'), { invitationToken: used })
    expect(await emailVerified(session)).toBe(false)
    // the foreign invitation is untouched by the sign-up that carried its token
    expect(((await data(await authed(ann, 'GET', `/orgs/${org.id}/invitations`))).invitations as Json[]).find((i) => i.email === foreign.email)!.status).toBe('pending')
  })

  it('refuses a malformed invitation token as a validation failure, like any malformed field', async () => {
    const res = await call(iam, 'POST', '/signup', { client: await newDevice(iam), body: signupBody(uniqueEmail('bad'), undefined, { invitationToken: 'short' }) })
    expect(res.status).toBe(400)
    expect(((await res.json()) as Json).code).toBe('validation_failed')
  })

  it('preview answers the invited address in full for the sign-up form', async () => {
    const ann = await person()
    const org = await newOrg(ann)
    const { email, token } = await invitedStranger(ann, org, 'prefill')
    const res = await call(iam, 'GET', `/orgs/invitations/preview?token=${token}`, { client: { ip: '203.0.113.9', ua: 'Mozilla/5.0 (X11; Linux x86_64) Chrome/140.0' } })
    expect(((await data(res)).invitation as Json).invitedEmail).toBe(email.toLowerCase())
  })
})

/** `owner` invites `email` to `org` and waits for that mail. */
async function invitedStrangerMail(owner: Session, org: { id: string }, email: string): Promise<void> {
  expect((await authed(owner, 'POST', `/orgs/${org.id}/invitations`, { email, role: 'member' })).status).toBe(201)
  await mailTo({ dataDir: iam.dataDir }, email, (m) => /invited you to join/.test(m.text ?? '') && (m.text ?? '').includes('Later Org'))
}

// last: it moves the IAM's clock
describe('invitation expiry', () => {
  it('refuses an invitation after 7 days', async () => {
    const [ann, bob] = [await person(), await person()]
    const org = await newOrg(ann)
    expect((await authed(ann, 'POST', `/orgs/${org.id}/invitations`, { email: bob.email, role: 'member' })).status).toBe(201)
    const token = await invitationToken(bob.email)
    await advanceClock(iam, 7 * 24 * 3_600_000 + 60_000)
    const s = await applyRefresh(bob, await refresh(iam, bob))
    expect((await authed(s, 'POST', '/orgs/invitations/accept', { token })).status).toBe(410)
    const annNow = await applyRefresh(ann, await refresh(iam, ann))
    const list = (await data(await authed(annNow, 'GET', `/orgs/${org.id}/invitations`))).invitations as Json[]
    expect(list.map((i) => i.status)).toEqual(['expired'])
  })

  it('does not count an address as confirmed at sign-up with an expired invitation', async () => {
    const ann = await person()
    const org = await newOrg(ann)
    const { email, token } = await invitedStranger(ann, org, 'late')
    await advanceClock(iam, 7 * 24 * 3_600_000 + 60_000)
    const { session } = await signupWith(email, { invitationToken: token })
    expect(await emailVerified(session)).toBe(false)
    await mailTo({ dataDir: iam.dataDir }, email, isVerificationMail)
  })
})
