/**
 * The organization BFF routes (server/api/orgs/**) against the real IAM: each calls its
 * allow-listed IAM route and relays the answer, every unsafe one refuses a request without the
 * CSRF header or from another site, and switching the active organization puts the IAM's new
 * access token, with its `org` claim, into the browser's cookie (never into a body).
 */
// store-independent: the gateway keeps no store of its own; the organization routes it relays run on both stores in tests/iam/organizations.test.ts
import { describe, expect, it } from 'vitest'
import { mailTo } from '../helpers/confirm-email'
import { magicLinkOf } from '../helpers/smtp'
import { browserLike, confirmEmailThrough, freshEmail, PASSWORD, setupStackOnSharedIam } from './bff-harness'

const stack = await setupStackOnSharedIam()

type Browser = ReturnType<typeof browserLike>

async function signedUp(tag: string): Promise<{ email: string; b: Browser }> {
  const email = freshEmail(tag)
  const b = browserLike(stack.gateway.url)
  const res = await b.call('/api/auth/signup', { method: 'POST', body: { email, password: PASSWORD, confirmedPassword: PASSWORD, name: `${tag} user`, termsConsent: 'on' } })
  expect(res.status, res.text).toBe(201)
  return { email, b }
}

let slugs = 0
const freshSlug = () => `org-${Date.now().toString(36)}-${(slugs++).toString(36)}`

async function createdOrg(b: Browser, name = 'Acme Widgets'): Promise<string> {
  const res = await b.call('/api/orgs', { method: 'POST', body: { name, slug: freshSlug() } })
  expect(res.status, res.text).toBe(201)
  return ((res.json.data as { org: { id: string } }).org).id
}

/** The `org` claim of the access token in the browser's cookie (decoded only to look at it). */
function orgClaimInCookie(b: Browser): unknown {
  const token = b.jar.get('__Secure-a')
  expect(token).toBeTruthy()
  return (JSON.parse(Buffer.from(token!.split('.')[1]!, 'base64url').toString('utf8')) as { org?: unknown }).org ?? null
}

describe('organizations through the BFF', () => {
  it('creates an organization and lists it with the caller as owner and no active organization yet', async () => {
    const { b } = await signedUp('creator')
    const id = await createdOrg(b, 'Listed Org')
    const res = await b.call('/api/orgs')
    expect(res.status, res.text).toBe(200)
    expect(res.json.data).toEqual({ orgs: [expect.objectContaining({ id, name: 'Listed Org', role: 'owner' })], active: null })
  })

  it('switching the active organization puts the new org claim into the session cookie, and switching back removes it', async () => {
    const { b } = await signedUp('switcher')
    const id = await createdOrg(b)
    const sessionBefore = b.jar.get('session')
    const res = await b.call('/api/orgs/active', { method: 'POST', body: { orgId: id } })
    expect(res.status, res.text).toBe(200)
    expect(res.json).toMatchObject({ ok: true, org: { id, role: 'owner' } })
    expect(res.text).not.toMatch(/accessToken|refreshToken|eyJ/)
    // the IAM rotated the pair: the new refresh token reached the browser too
    expect(b.jar.get('session')).not.toBe(sessionBefore)
    expect(orgClaimInCookie(b)).toMatchObject({ id, role: 'owner', permissions: expect.arrayContaining(['organization:delete']) })
    expect((await b.call('/api/orgs')).json.data).toMatchObject({ active: { id, role: 'owner' } })
    // the session goes on with the new pair
    expect((await b.call('/api/auth/session')).json).toMatchObject({ authenticated: true })

    const back = await b.call('/api/orgs/active', { method: 'POST', body: { orgId: null } })
    expect(back.status, back.text).toBe(200)
    expect(orgClaimInCookie(b)).toBeNull()
    expect((await b.call('/api/orgs')).json.data).toMatchObject({ active: null })
  })

  it('answers 404 for an organization the user is no member of, as for one that does not exist', async () => {
    const { b: owner } = await signedUp('isolated')
    const id = await createdOrg(owner)
    const { b: stranger } = await signedUp('stranger')
    const theirs = await stranger.call(`/api/orgs/${id}`)
    const none = await stranger.call('/api/orgs/00000000-0000-4000-8000-000000000000')
    expect([theirs.status, none.status]).toEqual([404, 404])
    expect(theirs.json.error).toBe(none.json.error)
    expect((await stranger.call('/api/orgs/active', { method: 'POST', body: { orgId: id } })).status).toBe(404)
    expect(orgClaimInCookie(stranger)).toBeNull()
  })

  it('refuses a malformed organization id with 400 before calling the IAM', async () => {
    const { b } = await signedUp('malformed')
    for (const path of ['/api/orgs/not-an-id', '/api/orgs/not-an-id/members']) {
      const res = await b.call(path)
      expect(res.status, path).toBe(400)
      expect(res.json).toMatchObject({ ok: false, error: 'Not an organization id' })
    }
  })

  it('answers 401 signed out', async () => {
    const b = browserLike(stack.gateway.url)
    expect((await b.call('/api/orgs')).status).toBe(401)
    expect((await b.call('/api/orgs', { method: 'POST', body: { name: 'x', slug: freshSlug() } })).status).toBe(401)
  })

  it('invites by mail; the invited account accepts through the BFF; the owner changes its role and the member sees it', async () => {
    const { b: owner } = await signedUp('inviter')
    const id = await createdOrg(owner, 'Invite Org')
    const { email, b: invited } = await signedUp('invitee')
    await confirmEmailThrough(invited, stack.iam, email)

    const invite = await owner.call(`/api/orgs/${id}/invitations`, { method: 'POST', body: { email, role: 'member' } })
    expect(invite.status, invite.text).toBe(201)
    const pending = await owner.call(`/api/orgs/${id}/invitations`)
    expect((pending.json.data as { invitations: Array<{ email: string; status: string }> }).invitations).toEqual([expect.objectContaining({ email, status: 'pending' })])

    const mail = await mailTo(stack.iam, email, (m) => (m.text ?? '').includes('/orgs/invitations/accept?token='))
    const token = magicLinkOf(mail).searchParams.get('token')!
    // the landing page's preview, signed out: what the link is for, the address masked
    const visitor = browserLike(stack.gateway.url)
    const preview = await visitor.call(`/api/orgs/invitations/preview?token=${token}`)
    expect(preview.status, preview.text).toBe(200)
    expect(preview.json.data).toMatchObject({ invitation: { orgName: 'Invite Org', inviterName: 'inviter user', email: `${email[0]}***@example.com` } })
    expect((await visitor.call('/api/orgs/invitations/preview?token=short')).status).toBe(400)
    const accepted = await invited.call('/api/orgs/invitations/accept', { method: 'POST', body: { token } })
    expect(accepted.status, accepted.text).toBe(200)
    expect(accepted.json.data).toMatchObject({ org: { id, role: 'member' } })
    // single use
    expect((await invited.call('/api/orgs/invitations/accept', { method: 'POST', body: { token } })).status).toBe(410)
    expect((await visitor.call(`/api/orgs/invitations/preview?token=${token}`)).status).toBe(410)

    const members = (await owner.call(`/api/orgs/${id}/members`)).json.data as { members: Array<{ userId: string; email: string }> }
    const member = members.members.find((m) => m.email === email)!
    const role = await owner.call(`/api/orgs/${id}/members/role`, { method: 'POST', body: { userId: member.userId, role: 'admin' } })
    expect(role.status, role.text).toBe(200)
    expect((await invited.call(`/api/orgs/${id}`)).json.data).toMatchObject({ org: { role: 'admin' } })
  })

  it('signs up from an invitation in one step: the preview names the invited address, the sign-up with the token starts confirmed, and the invitation is then accepted', async () => {
    const { b: owner } = await signedUp('host')
    const id = await createdOrg(owner, 'Welcome Org')
    const email = freshEmail('newcomer')
    expect((await owner.call(`/api/orgs/${id}/invitations`, { method: 'POST', body: { email, role: 'member' } })).status).toBe(201)
    const mail = await mailTo(stack.iam, email, (m) => (m.text ?? '').includes('/orgs/invitations/accept?token='))
    const token = magicLinkOf(mail).searchParams.get('token')!

    const b = browserLike(stack.gateway.url)
    const preview = await b.call(`/api/orgs/invitations/preview?token=${token}`)
    expect(preview.status, preview.text).toBe(200)
    const invitedEmail = (preview.json.data as { invitation: { invitedEmail: string } }).invitation.invitedEmail
    expect(invitedEmail).toBe(email.toLowerCase())
    const body = { email: invitedEmail, password: PASSWORD, confirmedPassword: PASSWORD, name: 'Newcomer', termsConsent: 'on', invitationToken: token }
    const res = await b.call('/api/auth/signup', { method: 'POST', body })
    expect(res.status, res.text).toBe(201)
    expect((await b.call('/api/auth/session')).json).toMatchObject({ authenticated: true, email: invitedEmail, emailVerified: true })
    // accepting is still its own step, and needs no confirmation mail first
    const accepted = await b.call('/api/orgs/invitations/accept', { method: 'POST', body: { token } })
    expect(accepted.status, accepted.text).toBe(200)
    expect(accepted.json.data).toMatchObject({ org: { id, role: 'member' } })

    // the same token with another address is an ordinary, unconfirmed sign-up
    const other = browserLike(stack.gateway.url)
    const plain = await other.call('/api/auth/signup', { method: 'POST', body: { ...body, email: freshEmail('bystander') } })
    expect(plain.status, plain.text).toBe(201)
    expect((await other.call('/api/auth/session')).json).toMatchObject({ authenticated: true, emailVerified: false })
  })

  it('creates, edits and deletes a custom role, and relays the IAM\'s refusals with their words', async () => {
    const { b } = await signedUp('roles')
    const id = await createdOrg(b)
    const created = await b.call(`/api/orgs/${id}/roles`, { method: 'POST', body: { name: 'Billing', permissions: ['billing:read'] } })
    expect(created.status, created.text).toBe(201)
    const roleId = ((created.json.data as { role: { id: string } }).role).id
    const owned = await b.call(`/api/orgs/${id}/roles/update`, { method: 'POST', body: { roleId, name: 'Billing', permissions: ['owners:manage'] } })
    expect(owned.status).toBe(400)
    expect(owned.json).toMatchObject({ ok: false, fields: { permissions: expect.any(String) } })
    const edited = await b.call(`/api/orgs/${id}/roles/update`, { method: 'POST', body: { roleId, name: 'Finance', permissions: ['billing:read', 'billing:write'] } })
    expect(edited.status, edited.text).toBe(200)
    expect((await b.call(`/api/orgs/${id}/roles`)).json.data).toEqual({ roles: [expect.objectContaining({ id: roleId, name: 'Finance', permissions: ['billing:read', 'billing:write'] })] })
    expect((await b.call(`/api/orgs/${id}/roles/delete`, { method: 'POST', body: { roleId } })).status).toBe(200)
    expect((await b.call(`/api/orgs/${id}/roles`)).json.data).toEqual({ roles: [] })
  })

  it('refuses every unsafe organization route without the CSRF header, or from another site, and changes nothing', async () => {
    const { b } = await signedUp('csrf')
    const id = await createdOrg(b)
    const uuid = '00000000-0000-4000-8000-000000000000'
    const attempts: Array<[string, unknown]> = [
      ['/api/orgs', { name: 'Planted', slug: freshSlug() }],
      ['/api/orgs/active', { orgId: id }],
      ['/api/orgs/invitations/accept', { token: 'A'.repeat(43) }],
      [`/api/orgs/${id}/members/role`, { userId: uuid, role: 'admin' }],
      [`/api/orgs/${id}/members/remove`, { userId: uuid }],
      [`/api/orgs/${id}/leave`, undefined],
      [`/api/orgs/${id}/delete`, undefined],
      [`/api/orgs/${id}/invitations`, { email: 'planted@example.com', role: 'member' }],
      [`/api/orgs/${id}/invitations/revoke`, { invitationId: uuid }],
      [`/api/orgs/${id}/invitations/resend`, { invitationId: uuid }],
      [`/api/orgs/${id}/roles`, { name: 'Planted', permissions: [] }],
      [`/api/orgs/${id}/roles/update`, { roleId: uuid, name: 'Planted', permissions: [] }],
      [`/api/orgs/${id}/roles/delete`, { roleId: uuid }],
    ]
    for (const [path, body] of attempts) {
      expect((await b.call(path, { method: 'POST', body, headers: { 'x-csrf': '' } })).status, path).toBe(403)
      expect((await b.call(path, { method: 'POST', body, headers: { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' } })).status, path).toBe(403)
    }
    const after = (await b.call('/api/orgs')).json.data as { orgs: unknown[]; active: unknown }
    expect(after).toMatchObject({ orgs: [expect.objectContaining({ id })], active: null })
    expect((await b.call(`/api/orgs/${id}/invitations`)).json.data).toEqual({ invitations: [] })
    expect((await b.call(`/api/orgs/${id}/roles`)).json.data).toEqual({ roles: [] })
  })
})
