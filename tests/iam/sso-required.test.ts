/**
 * Requiring SSO (docs/enterprise.md, "Requiring SSO"; iam/features/enterprise/sso-required.ts):
 * for an address whose domain an organization verified, with an enabled SAML connection that has
 * `requireSso`, every door that is not the organization's own sign-in answers 403 `sso_required`
 * with the connection to continue at: password sign-in, email sign-in (asking, link, code),
 * sign-up and the reset. The answer depends on the domain alone and comes before any password is
 * verified or any limiter counts; a platform administrator keeps password sign-in (break-glass);
 * the domains are an in-memory snapshot, so an ordinary login spends no statement on them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, newDevice, PROXY_CONFIG, signupUser, STRONG_PASSWORD, type Client, type Session } from '../helpers/accounts'
import { mailTo } from '../helpers/confirm-email'
import { startDnsServer, type DnsServer, type Zone } from '../helpers/dns-server'
import { GATEWAY_ORIGIN, newOrg, person, samlConnection, verifiedDomain } from '../helpers/enterprise'
import { startIam, type IamServer, type Json } from '../helpers/iam-server'
import { flushedLogs, requestLine } from '../helpers/logs'
import { untilMailTo } from '../helpers/outbox'
import { moved, scrapeMetrics } from '../helpers/prometheus'
import { makeIdpKeys, type IdpKeys } from '../helpers/saml-idp'
import { linkQueryOf } from '../helpers/smtp'

const WRONG = 'not the password at all'
const zones: Record<string, Zone> = {}
let dns: DnsServer
let iam: IamServer
let keys: IdpKeys
let owner: Session
let org: string
let connectionId: string
let domain: string
let alice: Session
let root: Session
/** the sign-in link mailed to alice before her organization required its own sign-in */
let earlyLink: string

const requireSso = async (on: boolean) => {
  const connection = await samlConnection(iam, owner, org, keys, { requireSso: on })
  expect(connection.id).toBe(connectionId)
}

beforeAll(async () => {
  dns = await startDnsServer(zones)
  keys = makeIdpKeys()
  iam = await startIam({
    config: {
      ...PROXY_CONFIG,
      // three failures for one address from one IP and the login limiter answers 429: a refusal that counted would show
      rate_limiters: { login: { points: 3, duration: 60, blockDuration: 60 } },
      signIn: { emailLink: true, emailCode: true },
      enterprise: { gatewayOrigin: GATEWAY_ORIGIN, dnsServers: [dns.server] },
    },
    // POST /__test/platform-admin grants the role the break-glass test needs
    env: { IAM_TEST_ROUTES: '1' },
  })
  owner = await person(iam)
  org = await newOrg(iam, owner)
  domain = `corp${Date.now().toString(36)}.test`
  await verifiedDomain(iam, owner, org, domain, zones)
  // the connection first without requireSso: the domain's people sign up with a password meanwhile
  connectionId = (await samlConnection(iam, owner, org, keys, { requireSso: false })).id
  alice = await signupUser(iam, { email: `alice@${domain}`, client: { ip: '198.51.100.11' } })
  root = await signupUser(iam, { email: `root@${domain}`, client: { ip: '198.51.100.12' } })
  const granted = await fetch(`${iam.url}/__test/platform-admin`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: root.email, admin: true }) })
  expect(granted.status).toBe(200)
  const asked = await call(iam, 'POST', '/auth/email-sign-in', { client: alice, body: { email: alice.email, method: 'link' } })
  expect(asked.status).toBe(200)
  earlyLink = linkQueryOf(await mailTo({ dataDir: iam.dataDir }, alice.email, (mail) => (mail.text ?? '').includes('reason=EMAIL_SIGN_IN&')))
  await requireSso(true)
}, 240_000)
afterAll(async () => {
  await iam?.stop()
  await dns?.stop()
})

const login = (client: Client, email: string, password: string, requestId?: string) =>
  call(iam, 'POST', '/login', { client, body: { email, password }, ...(requestId ? { headers: { 'x-request-id': requestId } } : {}) })
const withoutDate = (body: Json) => ({ ...body, date: undefined })
const refusal = () => ({ ok: false, date: expect.any(String), error: expect.any(String), code: 'sso_required', connectionId, startUrl: `${GATEWAY_ORIGIN}/sso/saml/${connectionId}/start` })

async function expectRefused(res: Response) {
  const body = (await res.json()) as Json
  expect(res.status, JSON.stringify(body)).toBe(403)
  expect(body).toEqual(refusal())
  return body
}

describe('password sign-in for a domain that requires SSO', () => {
  it('refuses a right password, a wrong one and an unknown address of the domain with one answer, before any Argon2 verification or limiter count', async () => {
    const client = await newDevice(iam, { ip: '198.51.100.40' })
    const verifyLines = (logs: string[]) => logs.filter((line) => line.includes('"login verification"')).length
    const before = verifyLines(await flushedLogs(iam))
    const bodies: Json[] = []
    const ids: string[] = []
    // more attempts than the login limiter allows failures: none of them is counted
    for (const [i, [email, password]] of [[alice.email, STRONG_PASSWORD], [alice.email, WRONG], [alice.email.toUpperCase(), WRONG], [`nobody@${domain}`, WRONG], [alice.email, WRONG], [alice.email, STRONG_PASSWORD]].entries()) {
      ids.push(`sso-required-${i}`)
      bodies.push(await expectRefused(await login(client, email!, password!, ids.at(-1))))
    }
    await Promise.all(ids.map((id) => requestLine(iam, id)))
    expect(verifyLines(iam.logs) - before).toBe(0)
    for (const body of bodies) expect(withoutDate(body)).toEqual(withoutDate(bodies[0]!))
  })

  it('costs the refused attempt only the device read of every login, and writes nothing', async () => {
    const client = await newDevice(iam, { ip: '198.51.100.41' })
    const before = await scrapeMetrics(iam.url)
    await expectRefused(await login(client, alice.email, STRONG_PASSWORD))
    const after = await scrapeMetrics(iam.url)
    const statements = (kind: string) => moved(before, after, 'iam_db_statements_total', { kind })
    expect([statements('read'), statements('write'), statements('transaction')]).toEqual([1, 0, 0])
  })

  it('lets a platform administrator of the domain sign in with the password, and answers their wrong password like anyone else', async () => {
    const client = await newDevice(iam, { ip: '198.51.100.42' })
    const wrong = await login(client, root.email, WRONG)
    await expectRefused(wrong)
    const right = await login(client, root.email, STRONG_PASSWORD)
    expect(right.status, await right.clone().text()).toBe(200)
    expect(((await right.json()) as Json).accessToken).toEqual(expect.any(String))
  })

  it('signs in an address of a domain that does not require SSO, at one read and one write as before', async () => {
    const client = await newDevice(iam, { ip: '198.51.100.43' })
    const user = await signupUser(iam, { client: { ip: '198.51.100.44' } })
    await untilMailTo(iam.dataDir, user.email)
    const before = await scrapeMetrics(iam.url)
    const res = await login(client, user.email, STRONG_PASSWORD)
    expect(res.status).toBe(200)
    const after = await scrapeMetrics(iam.url)
    const statements = (kind: string) => moved(before, after, 'iam_db_statements_total', { kind })
    expect([statements('read'), statements('write'), statements('transaction')]).toEqual([1, 1, 0])
  })
})

describe('the other doors', () => {
  it('refuses a sign-up of an address of the domain', async () => {
    const client = await newDevice(iam, { ip: '198.51.100.50' })
    const body = { email: `new@${domain}`, password: STRONG_PASSWORD, confirmedPassword: STRONG_PASSWORD, name: 'New', termsConsent: 'on' }
    await expectRefused(await call(iam, 'POST', '/signup', { client, body }))
  })

  it('refuses a sign-up with a passkey for an address of the domain with the answer of POST /signup, and its code step too', async () => {
    const client = await newDevice(iam, { ip: '198.51.100.53' })
    await expectRefused(await call(iam, 'POST', '/auth/passkey-signup/start', { client, body: { email: `new@${domain}`, name: 'New', termsConsent: 'on' } }))
    await expectRefused(await call(iam, 'POST', '/auth/passkey-signup/options', { client, body: { email: `new@${domain}`, code: '1234567' } }))
  })

  it('refuses a password reset for an address of the domain, known or not', async () => {
    const client = await newDevice(iam, { ip: '198.51.100.51' })
    for (const email of [alice.email, `nobody@${domain}`]) await expectRefused(await call(iam, 'POST', '/auth/forgot-password', { client, body: { email } }))
  })

  it('refuses to mail a sign-in link or code, a code typed for the address, and a link mailed before SSO was required', async () => {
    const client = await newDevice(iam, { ip: '198.51.100.52' })
    for (const method of ['link', 'code']) await expectRefused(await call(iam, 'POST', '/auth/email-sign-in', { client, body: { email: alice.email, method } }))
    await expectRefused(await call(iam, 'POST', '/auth/email-sign-in/code', { client, body: { email: alice.email, code: '1234567' } }))
    await expectRefused(await call(iam, 'POST', `/auth/email-sign-in/link${earlyLink}`, { client: alice }))
  })
})

describe('changing requireSso', () => {
  it('lets password sign-in back in on this instance as soon as requireSso is turned off, and refuses it again once turned on', async () => {
    const client = await newDevice(iam, { ip: '198.51.100.60' })
    await expectRefused(await login(client, alice.email, STRONG_PASSWORD))
    await requireSso(false)
    try {
      const res = await login(client, alice.email, STRONG_PASSWORD)
      expect(res.status, await res.clone().text()).toBe(200)
    } finally {
      await requireSso(true)
    }
    await expectRefused(await login(client, alice.email, STRONG_PASSWORD))
  })

  it('refuses as soon as a domain that requires SSO is verified, and lets the password in again once it is removed', async () => {
    const other = `corp${Date.now().toString(36)}b.test`
    const client = await newDevice(iam, { ip: '198.51.100.61' })
    const user = await signupUser(iam, { email: `carol@${other}`, client: { ip: '198.51.100.62' } })
    const domainId = await verifiedDomain(iam, owner, org, other, zones)
    await expectRefused(await login(client, user.email, STRONG_PASSWORD))
    const removed = await call(iam, 'POST', `/orgs/${org}/domains/remove`, { client: owner, cookies: { session: owner.refreshToken }, bearer: owner.accessToken, body: { domainId } })
    expect(removed.status).toBe(200)
    expect((await login(client, user.email, STRONG_PASSWORD)).status).toBe(200)
  })
})
