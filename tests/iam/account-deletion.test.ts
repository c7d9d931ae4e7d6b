/**
 * Self-service account deletion over HTTP (iam/features/account-deletion, docs/accounts.md): the
 * request needs a recent sign-in and is refused to the last owner of an organization; the mailed
 * link confirms once and disables the account at that moment (every credential refused, a wrong
 * password answered as for an unknown address, the right one told the state); the undo link restores it within the window and is refused
 * in words after it; the purge erases what the account owned, keeps its security events with the
 * id only, frees the address, and has one winner per account: through the test build's purge
 * route, the server's timer and `users:purge`. Its own IAMs: the file moves the clock.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { applyRefresh, authedGet, call, loginUser, newDevice, PROXY_CONFIG, refresh, signupUser, STRONG_PASSWORD, uniqueEmail, type Session } from '../helpers/accounts'
import { advanceClock, CLOCK_ENV } from '../helpers/clock'
import { mailTo, signupConfirmed, type MailSource } from '../helpers/confirm-email'
import { startIam, type IamEndpoint, type IamServer, type Json } from '../helpers/iam-server'
import { isVerificationMail, linkQueryOf } from '../helpers/smtp'
import { waitUntil } from '../helpers/wait'
import { PNG } from '../helpers/pictures'
import { cliJson, cliStage, deployment, type Cleanups } from './admin-cli-run'
import { newToken, verify, WIDE_LIMITERS } from './api-tokens-http'
import { expectDocumented } from './documented'

const DAY_MS = 86_400_000
const WINDOW_MS = 7 * DAY_MS
const WIDE = { points: 1000, duration: 60, blockDuration: 60 }
const CONFIG = {
  ...PROXY_CONFIG,
  rate_limiters: { signup: WIDE, emails: WIDE, links: WIDE, codes: WIDE, login: WIDE, apiTokensLimiters: WIDE_LIMITERS },
  // the clock moves days at a time: a session idle that long would be asked for the emailed code
  anomalies: { velocity: { count: 50 }, idleMs: 60 * DAY_MS },
}
const START_TIMEOUT_MS = 240_000

const cleanups: Cleanups = []
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup()
})

let ip = 0
const nextIp = () => `198.51.100.${(++ip % 250) + 1}`

const authed = (iam: IamEndpoint, s: Session, method: string, path: string, body?: unknown) =>
  call(iam, method, path, { client: s, cookies: { session: s.refreshToken }, bearer: s.accessToken, body })
const bodyOf = async (res: Response) => (await res.json()) as Json
const withoutDate = ({ date: _date, ...rest }: Json) => rest

const isConfirmMail = (text: string) => text.includes('reason=DELETE_ACCOUNT&')
const isUndoMail = (text: string) => text.includes('reason=UNDO_DELETE_ACCOUNT&')

/** `?token&...` of the newest mail to `email` whose text `match` accepts. */
const linkIn = async (source: MailSource, email: string, match: (text: string) => boolean) => linkQueryOf(await mailTo(source, email, (m) => match(m.text ?? '')))

/** Asks for the deletion as `s` (202) and answers the confirmation link's query. */
async function requestDeletion(iam: IamEndpoint, source: MailSource, s: Session): Promise<string> {
  const res = await authed(iam, s, 'POST', '/auth/delete-account')
  const body = await bodyOf(res)
  expect(res.status, JSON.stringify(body)).toBe(202)
  expectDocumented('deleteAccount', 202, body)
  return linkIn(source, s.email, isConfirmMail)
}

/** Requests and confirms the deletion of `s`; answers the undo link's query. */
async function deleteAccount(iam: IamEndpoint, source: MailSource, s: Session): Promise<string> {
  const confirm = await requestDeletion(iam, source, s)
  const res = await call(iam, 'POST', `/auth/delete-account/confirm${confirm}`, { client: s })
  expect(res.status, await res.clone().text()).toBe(200)
  return linkIn(source, s.email, isUndoMail)
}

/** What a sign-in with the password answers, without its date. */
async function loginAnswer(iam: IamEndpoint, email: string, password: string) {
  const res = await call(iam, 'POST', '/login', { client: await newDevice(iam, { ip: nextIp() }), body: { email, password } })
  return { status: res.status, body: withoutDate(await bodyOf(res)) }
}

type Footprint = { user: { id: number; publicId: string; deletionDueAt: string | null } | null; userId?: number; rows?: Record<string, number>; events?: Json[] }
async function footprint(iam: IamEndpoint, of: { email: string } | { userId: number; publicId?: string }): Promise<Footprint> {
  const res = await fetch(`${iam.url}/__test/account-footprint`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(of) })
  expect(res.status).toBe(200)
  return (await res.json()) as Footprint
}

async function purgeAtOnce(iam: IamEndpoint, runs: number): Promise<number[]> {
  const res = await fetch(`${iam.url}/__test/account-purge`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ runs }) })
  expect(res.status).toBe(200)
  return ((await res.json()) as { purged: number[] }).purged
}

describe('account deletion: request, confirmation, undo, purge', () => {
  let iam: IamServer
  let mails: MailSource
  const person = () => signupConfirmed(iam, mails, { client: { ip: nextIp() }, remember: true })

  beforeAll(async () => {
    // no timer here: the purge runs when a test asks (the timer has its own IAM below)
    iam = await startIam({ config: { ...CONFIG, accountDeletion: { purgeEveryMs: 0 } }, env: CLOCK_ENV })
    mails = { dataDir: iam.dataDir }
  }, START_TIMEOUT_MS)
  afterAll(() => iam?.stop())

  async function newOrg(owner: Session): Promise<{ id: string; name: string }> {
    const name = `Deletion Test ${++ip}`
    const res = await authed(iam, owner, 'POST', '/orgs', { name, slug: `del-${Date.now().toString(36)}-${ip}` })
    expect(res.status).toBe(201)
    return { id: ((await bodyOf(res)).data as { org: { id: string } }).org.id, name }
  }

  async function join(owner: Session, orgId: string, invitee: Session): Promise<void> {
    expect((await authed(iam, owner, 'POST', `/orgs/${orgId}/invitations`, { email: invitee.email, role: 'member' })).status).toBe(201)
    const mail = await mailTo(mails, invitee.email, (m) => /invited you to join/.test(m.text ?? ''))
    const token = /[?&]token=([A-Za-z0-9_-]{43})/.exec(mail.text ?? '')![1]!
    expect((await authed(iam, invitee, 'POST', '/orgs/invitations/accept', { token })).status).toBe(200)
  }

  it('asks for a recent sign-in (403 reauthenticate) before mailing anything, and mails the link once proven', async () => {
    const ann = await person()
    // move past the re-authentication window; the session itself stays good
    await advanceClock(iam, 11 * 60_000)
    const stale = await applyRefresh(ann, await refresh(iam, ann))
    const refused = await authed(iam, stale, 'POST', '/auth/delete-account')
    const body = await bodyOf(refused)
    expect(refused.status).toBe(403)
    expect(body).toMatchObject({ ok: false, reauthenticate: true })
    const proven = await authed(iam, stale, 'POST', '/auth/reauthenticate', { password: STRONG_PASSWORD })
    expect(proven.status).toBe(200)
    const confirm = await requestDeletion(iam, mails, stale)
    // the link is the other mailed links' format: token, random, reason and visitor
    expect(confirm).toMatch(/^\?token=[^&]+&random=[^&]+&reason=DELETE_ACCOUNT&visitor=[^&]+$/)
    // nothing changed yet: the account works until the link is used
    expect((await authedGet(iam, stale)).status).toBe(200)
  })

  it('refuses the last owner of an organization with 409 naming it, and accepts once another member is an owner', async () => {
    const [ann, bob] = [await person(), await person()]
    const org = await newOrg(ann)
    const refused = await authed(iam, ann, 'POST', '/auth/delete-account')
    const body = await bodyOf(refused)
    expect(refused.status).toBe(409)
    expect(body).toMatchObject({ ok: false, code: 'last_owner', organizations: [{ id: org.id, name: org.name }] })
    expect(body.error).toContain(org.name)
    expectDocumented('deleteAccount', 409, body)

    await join(ann, org.id, bob)
    const members = ((await bodyOf(await authed(iam, ann, 'GET', `/orgs/${org.id}/members`))).data as { members: { email: string; userId: string }[] }).members
    const bobId = members.find((m) => m.email === bob.email)!.userId
    expect((await authed(iam, ann, 'POST', `/orgs/${org.id}/members/role`, { userId: bobId, role: 'owner' })).status).toBe(200)
    await requestDeletion(iam, mails, ann)
  })

  it("keeps an owner the organization can use: once a co-owner's deletion is confirmed, the other owner cannot leave nor be made a member", async () => {
    const [ann, bob, cat] = [await person(), await person(), await person()]
    const org = await newOrg(ann)
    await join(ann, org.id, bob)
    await join(ann, org.id, cat)
    const members = ((await bodyOf(await authed(iam, ann, 'GET', `/orgs/${org.id}/members`))).data as { members: { email: string; userId: string }[] }).members
    const idOf = (s: Session) => members.find((m) => m.email === s.email)!.userId
    expect((await authed(iam, ann, 'POST', `/orgs/${org.id}/members/role`, { userId: idOf(bob), role: 'owner' })).status).toBe(200)
    // ann leaves the organization to bob by deleting her account: allowed, bob is an owner
    await deleteAccount(iam, mails, ann)
    // bob is now the only owner who will still exist: he may neither leave nor lose the role
    const left = await authed(iam, bob, 'POST', `/orgs/${org.id}/leave`)
    expect(left.status, await left.clone().text()).toBe(409)
    const demoted = await authed(iam, bob, 'POST', `/orgs/${org.id}/members/role`, { userId: idOf(bob), role: 'member' })
    expect(demoted.status, await demoted.clone().text()).toBe(409)
    // and after the purge the organization still has its owner
    await advanceClock(iam, WINDOW_MS + 60_000)
    await purgeAtOnce(iam, 1)
    const catNow = await applyRefresh(cat, await refresh(iam, cat))
    const after = ((await bodyOf(await authed(iam, catNow, 'GET', `/orgs/${org.id}/members`))).data as { members: { email: string; role: string }[] }).members
    expect(after.filter((m) => m.role === 'owner').map((m) => m.email)).toEqual([bob.email])
  })

  it('confirms with the link once: two confirmations at once have one winner, and the link is then used', async () => {
    const ann = await person()
    const confirm = await requestDeletion(iam, mails, ann)
    const preview = await call(iam, 'GET', `/auth/delete-account/confirm${confirm}`, { client: ann })
    expect(preview.status).toBe(200)
    expectDocumented('deleteAccountLink', 200, await bodyOf(preview))
    const answers = await Promise.all([0, 1].map(() => call(iam, 'POST', `/auth/delete-account/confirm${confirm}`, { client: ann })))
    expect(answers.map((r) => r.status).sort()).toEqual([200, 400])
    const won = await bodyOf(answers.find((r) => r.status === 200)!)
    expectDocumented('confirmDeleteAccount', 200, won)
    expect(won.data).toMatchObject({ undoMailed: true, dueAt: expect.any(String) })
    const lost = await bodyOf(answers.find((r) => r.status === 400)!)
    expect(lost.error).toBe('Link already used')
    expect((await call(iam, 'POST', `/auth/delete-account/confirm${confirm}`, { client: ann })).status).toBe(400)
    // one confirmation recorded
    const row = await footprint(iam, { email: ann.email })
    expect(row.events!.filter((e) => e.type === 'account_deletion_confirmed')).toHaveLength(1)
  })

  it('refuses every credential the moment the deletion is confirmed; a wrong password is answered as for an unknown address, the right one with the state', async () => {
    const ann = await person()
    const token = await newToken(iam, ann)
    expect((await verify(iam, token.rawApiKey, 'full')).status).toBe(200)
    const unknownBefore = await loginAnswer(iam, uniqueEmail('nobody'), STRONG_PASSWORD)

    await deleteAccount(iam, mails, ann)
    expect((await authedGet(iam, ann)).status).toBe(401)
    expect((await refresh(iam, ann)).status).toBe(401)
    const apiKey = await verify(iam, token.rawApiKey, 'full')
    expect({ status: apiKey.status, body: withoutDate(await bodyOf(apiKey)) }).toEqual({ status: 401, body: { ok: false, reason: 'Invalid key', code: 'api_key_invalid' } })
    // a wrong password gets the unknown address's answer: nothing tells the address has an account
    expect(await loginAnswer(iam, ann.email, 'not the password at all 1')).toEqual(unknownBefore)
    // the right password learns the state, and no session (tests/iam/account-restore.security.test.ts)
    const right = await loginAnswer(iam, ann.email, STRONG_PASSWORD)
    expect(right).toMatchObject({ status: 403, body: { ok: false, deletionPending: true } })
    expect(right.body).not.toHaveProperty('accessToken')
    const row = await footprint(iam, { email: ann.email })
    expect(row.user!.deletionDueAt).not.toBeNull()
  })

  it('restores sign-in with the undo link within the window; what the deletion ended stays ended', async () => {
    const ann = await person()
    const token = await newToken(iam, ann)
    const undo = await deleteAccount(iam, mails, ann)
    await advanceClock(iam, 6 * DAY_MS)
    const preview = await call(iam, 'GET', `/auth/undo-delete-account${undo}`, { client: ann })
    expect(preview.status).toBe(200)
    expectDocumented('undoDeleteAccountLink', 200, await bodyOf(preview))
    const res = await call(iam, 'POST', `/auth/undo-delete-account${undo}`, { client: ann })
    const body = await bodyOf(res)
    expect(res.status, JSON.stringify(body)).toBe(200)
    expectDocumented('undoDeleteAccount', 200, body)
    await expect(loginUser(iam, ann.email, STRONG_PASSWORD, await newDevice(iam, { ip: nextIp() }))).resolves.toMatchObject({ accessToken: expect.any(String) })
    expect((await refresh(iam, ann)).status).toBe(401)
    expect((await verify(iam, token.rawApiKey, 'full')).status).toBe(401)
    // single use
    expect((await call(iam, 'POST', `/auth/undo-delete-account${undo}`, { client: ann })).status).toBe(400)
    expect((await footprint(iam, { email: ann.email })).events!.map((e) => e.type)).toContain('account_deletion_cancelled')
  })

  it('refuses the undo link in words once the 7 days have passed, and the account stays disabled', async () => {
    const ann = await person()
    const undo = await deleteAccount(iam, mails, ann)
    await advanceClock(iam, WINDOW_MS + 60_000)
    for (const method of ['GET', 'POST']) {
      const res = await call(iam, method, `/auth/undo-delete-account${undo}`, { client: ann })
      const body = await bodyOf(res)
      expect(res.status, `${method} ${JSON.stringify(body)}`).toBe(410)
      expect(body.error).toMatch(/time to undo the deletion has passed/)
      expectDocumented(method === 'GET' ? 'undoDeleteAccountLink' : 'undoDeleteAccount', 410, body)
    }
    expect((await loginAnswer(iam, ann.email, STRONG_PASSWORD)).status).toBe(401)
  })

  it('purges after the window: the account and what it owned (its picture too) are gone, its security events keep only the id, and the address signs up anew', async () => {
    const [ann, bob] = [await person(), await person()]
    const org = await newOrg(bob)
    await join(bob, org.id, ann)
    await newToken(iam, ann)
    // the uploaded picture goes with the account (user_pictures references users ON DELETE CASCADE)
    const picture = await fetch(`${iam.url}/auth/picture`, {
      method: 'PUT',
      headers: { 'user-agent': ann.ua, 'x-forwarded-for': ann.ip, cookie: `canary_id=${ann.canary}; session=${ann.refreshToken}`, authorization: `Bearer ${ann.accessToken}`, 'content-type': 'image/png' },
      body: PNG,
    })
    expect(picture.status).toBe(200)
    const before = await footprint(iam, { email: ann.email })
    const { id: userId, publicId } = before.user!
    expect(before.rows).toMatchObject({ session_families: expect.any(Number), api_tokens: 1, memberships: 1, user_pictures: 1 })
    await deleteAccount(iam, mails, ann)

    // within the window nothing is erased
    await advanceClock(iam, WINDOW_MS - DAY_MS)
    await purgeAtOnce(iam, 1)
    expect((await footprint(iam, { email: ann.email })).user).not.toBeNull()

    await advanceClock(iam, DAY_MS + 60_000)
    // two purges at once: each due account is erased by exactly one of them
    const counts = await purgeAtOnce(iam, 2)
    expect(counts.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(1)
    expect(await purgeAtOnce(iam, 2)).toEqual([0, 0])

    const after = await footprint(iam, { userId, publicId })
    expect(after.user).toBeNull()
    expect(Object.values(after.rows!).every((n) => n === 0), JSON.stringify(after.rows)).toBe(true)
    expect(after.events!.length).toBeGreaterThan(0)
    for (const event of after.events!) expect(event).toEqual({ type: expect.any(String), user_id: userId, visitor_id: null, ip_address: null, details: {} })
    // the organization lives on with its other owner (whose access token ran out while the clock moved)
    const bobNow = await applyRefresh(bob, await refresh(iam, bob))
    const members = (await bodyOf(await authed(iam, bobNow, 'GET', `/orgs/${org.id}/members`))).data as { members: { email: string }[] }
    expect(members.members.map((m) => m.email)).toEqual([bob.email])

    const again = await signupUser(iam, { email: ann.email, client: { ip: nextIp() } })
    expect((await authedGet(iam, again)).status).toBe(200)
    expect((await footprint(iam, { email: ann.email })).user!.id).not.toBe(userId)
  })

  it('revokes at the purge the pending invitations addressed to the erased account, so a new account at the address cannot accept them', async () => {
    const [ann, bob] = [await person(), await person()]
    const org = await newOrg(bob)
    await deleteAccount(iam, mails, ann)
    // sent while the deletion waits, so the invitation (7 days) outlives the undo window (7 days)
    await advanceClock(iam, DAY_MS)
    const bobLater = await applyRefresh(bob, await refresh(iam, bob))
    expect((await authed(iam, bobLater, 'POST', `/orgs/${org.id}/invitations`, { email: ann.email, role: 'member' })).status).toBe(201)
    const mail = await mailTo(mails, ann.email, (m) => /invited you to join/.test(m.text ?? ''))
    const token = /[?&]token=([A-Za-z0-9_-]{43})/.exec(mail.text ?? '')![1]!

    // past the due time, still within the invitation's 7 days
    await advanceClock(iam, WINDOW_MS - DAY_MS + 60_000)
    await purgeAtOnce(iam, 1)
    expect((await footprint(iam, { email: ann.email })).user).toBeNull()

    const bobNow = await applyRefresh(bobLater, await refresh(iam, bobLater))
    const listed = (await bodyOf(await authed(iam, bobNow, 'GET', `/orgs/${org.id}/invitations`))).data as { invitations: { email: string; status: string }[] }
    expect(listed.invitations.filter((i) => i.email === ann.email).map((i) => i.status)).toEqual(['revoked'])
    // whoever signs up with the freed address next is not the person the organization invited
    const annVerification = linkQueryOf(await mailTo(mails, ann.email, isVerificationMail))
    const stranger = await signupUser(iam, { email: ann.email, client: { ip: nextIp() } })
    // the outbox still holds the erased account's verification mail: wait for the new one
    const verification = linkQueryOf(await mailTo(mails, ann.email, (m) => isVerificationMail(m) && linkQueryOf(m) !== annVerification))
    expect((await call(iam, 'POST', `/auth/verify-email${verification}`, { client: stranger })).status).toBe(200)
    const accept = await authed(iam, stranger, 'POST', '/orgs/invitations/accept', { token })
    expect(accept.status).toBe(410)
    expect((await bodyOf(await authed(iam, stranger, 'GET', '/orgs'))).data).toMatchObject({ orgs: [] })
  })
})

describe('account deletion: the purge on the server timer', () => {
  let iam: IamServer
  beforeAll(async () => {
    iam = await startIam({ config: { ...CONFIG, accountDeletion: { purgeEveryMs: 50 } }, env: CLOCK_ENV })
  }, START_TIMEOUT_MS)
  afterAll(() => iam?.stop())

  it('erases a due account by itself once the window has passed', async () => {
    const mails = { dataDir: iam.dataDir }
    const ann = await signupConfirmed(iam, mails, { client: { ip: nextIp() } })
    await deleteAccount(iam, mails, ann)
    const { id: userId } = (await footprint(iam, { email: ann.email })).user!
    await advanceClock(iam, WINDOW_MS + 60_000)
    await waitUntil(async () => (await footprint(iam, { userId })).user === null, 'the timer purged the account')
    // the line is written after the purge committed, and the request log is flushed in batches
    await waitUntil(() => iam.logs.some((line) => line.includes('accounts purged')), 'the purge logged what it erased')
  })
})

describe('account deletion: users:purge', () => {
  it('erases the due accounts and says how many (--json), and finds nothing more on a second run', async () => {
    const undoWindowMs = 1_000
    const dep = await deployment(cleanups, { ...CONFIG, accountDeletion: { purgeEveryMs: 0, undoWindowMs } })
    const stage = cliStage(dep)
    cleanups.push(() => stage.stop())
    const iam = await stage.server()
    const mails = { dataDir: iam.dataDir }
    const ann = await signupConfirmed(iam, mails, { client: { ip: nextIp() } })
    await deleteAccount(iam, mails, ann)
    const due = Date.now() + undoWindowMs
    await waitUntil(() => Date.now() > due, 'the undo window of the CLI deployment has passed')
    expect(await stage.cliTurn(() => cliJson(['users:purge'], dep.env))).toMatchObject({ ok: true, purged: 1 })
    expect(await stage.cliTurn(() => cliJson(['users:purge'], dep.env))).toMatchObject({ ok: true, purged: 0 })
    const again = await signupUser(await stage.server(), { email: ann.email, client: { ip: nextIp() } })
    expect((await authedGet(await stage.server(), again)).status).toBe(200)
  }, 4 * START_TIMEOUT_MS)
})
