/**
 * Requiring SSO through the gateway (docs/enterprise.md, "Requiring SSO"): once an organization
 * requires its own sign-in for a verified domain, the BFF's password sign-in, sign-up, reset and
 * email sign-in pass the IAM's 403 `sso_required` on with the connection to continue at, and a
 * no-JS form post goes straight on to that connection's SAML start at the gateway.
 */
// store-independent: the gateway keeps no store of its own; the IAM side of required SSO runs on both stores in tests/iam/sso-required.test.ts
import { beforeAll, describe, expect, it } from 'vitest'
import { startDnsServer, type Zone } from '../helpers/dns-server'
import { makeIdpKeys } from '../helpers/saml-idp'
import { browserLike, confirmEmailThrough, freshEmail, PASSWORD, setupStack } from './bff-harness'

const GATEWAY_ORIGIN = 'https://id.example.test'
const zones: Record<string, Zone> = {}
const dns = await startDnsServer(zones)
const keys = makeIdpKeys('sso-required-idp')
const stack = await setupStack({
  signIn: { emailLink: true },
  enterprise: { gatewayOrigin: GATEWAY_ORIGIN, dnsServers: [dns.server] },
})

type Browser = ReturnType<typeof browserLike>
const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString()
const FORM_POST = { 'content-type': 'application/x-www-form-urlencoded', 'x-csrf': '', accept: 'text/html' }
const signupBody = (email: string) => ({ email, password: PASSWORD, confirmedPassword: PASSWORD, name: 'Person', termsConsent: 'on' })

let owner: Browser
let orgId = ''
let connectionId = ''
let domain = ''
let member = ''

async function setConnection(requireSso: boolean) {
  const res = await owner.call(`/api/orgs/${orgId}/sso`, {
    method: 'POST',
    body: { idpEntityId: 'https://idp.example.test/entity', idpSsoUrl: 'https://idp.example.test/sso', idpCertificate: keys.cert, enabled: true, requireSso },
  })
  expect(res.status, res.text).toBe(200)
  return (res.json.data as { connection: { id: string } }).connection.id
}

/** A browser on the sign-in page (the CSRF cookie a no-JS form carries). */
async function onPage(path: string): Promise<{ b: Browser; csrf: string }> {
  const b = browserLike(stack.gateway.url)
  await b.call(path, { headers: { accept: 'text/html', 'sec-fetch-dest': 'document' } })
  return { b, csrf: b.jar.get('__Host-csrf') ?? '' }
}

beforeAll(async () => {
  owner = browserLike(stack.gateway.url)
  const ownerEmail = freshEmail('sso-required-owner')
  expect((await owner.call('/api/auth/signup', { method: 'POST', body: signupBody(ownerEmail) })).status).toBe(201)
  await confirmEmailThrough(owner, stack.iam, ownerEmail)
  const org = await owner.call('/api/orgs', { method: 'POST', body: { name: 'Required Corp', slug: `required-${Date.now().toString(36)}` } })
  expect(org.status, org.text).toBe(201)
  orgId = (org.json.data as { org: { id: string } }).org.id
  domain = `required${Date.now().toString(36)}.test`
  const added = await owner.call(`/api/orgs/${orgId}/domains`, { method: 'POST', body: { domain } })
  const view = (added.json.data as { domain: { id: string; txt: { name: string; value: string } } }).domain
  zones[view.txt.name] = { txt: [view.txt.value] }
  expect((await owner.call(`/api/orgs/${orgId}/domains/verify`, { method: 'POST', body: { domainId: view.id } })).status).toBe(200)
  // a person of the domain signed up with a password before the organization required its sign-in
  connectionId = await setConnection(false)
  member = `member@${domain}`
  expect((await browserLike(stack.gateway.url).call('/api/auth/signup', { method: 'POST', body: signupBody(member) })).status).toBe(201)
  expect(await setConnection(true)).toBe(connectionId)
})

describe('the BFF with a domain that requires SSO', () => {
  it('passes the refusal of a password sign-in on with the connection, for a right and a wrong password alike', async () => {
    const b = browserLike(stack.gateway.url)
    const right = await b.call('/api/auth/login', { method: 'POST', body: { email: member, password: PASSWORD } })
    const wrong = await b.call('/api/auth/login', { method: 'POST', body: { email: member, password: 'not the password' } })
    for (const res of [right, wrong]) {
      expect(res.status, res.text).toBe(403)
      expect(res.json).toMatchObject({ ok: false, code: 'sso_required', connectionId, startUrl: `${GATEWAY_ORIGIN}/sso/saml/${connectionId}/start` })
    }
    expect(b.jar.has('__Secure-a')).toBe(false)
  })

  it('passes the refusal of a sign-up, a reset and a sign-in mail on', async () => {
    const b = browserLike(stack.gateway.url)
    const refused = [
      await b.call('/api/auth/signup', { method: 'POST', body: signupBody(`new@${domain}`) }),
      await b.call('/api/auth/forgot-password', { method: 'POST', body: { email: member } }),
      await b.call('/api/auth/email-sign-in', { method: 'POST', body: { email: member, method: 'link' } }),
    ]
    for (const res of refused) {
      expect(res.status, res.text).toBe(403)
      expect(res.json).toMatchObject({ code: 'sso_required', connectionId })
    }
  })

  it('sends a no-JS sign-in, sign-up, reset and mail request on to the organization sign-in, keeping where the person was going', async () => {
    const login = await onPage('/login?returnTo=%2Forgs')
    const signedIn = await login.b.call('/api/auth/login', { method: 'POST', body: form({ email: member, password: PASSWORD, returnTo: '/orgs', _csrf: login.csrf }), headers: FORM_POST })
    expect(signedIn.status).toBe(303)
    expect(signedIn.headers.get('location')).toBe(`/sso/saml/${connectionId}/start?returnTo=%2Forgs`)
    const signup = await onPage('/signup')
    const signedUp = await signup.b.call('/api/auth/signup', { method: 'POST', body: form({ ...signupBody(`other@${domain}`), _csrf: signup.csrf }), headers: FORM_POST })
    expect(signedUp.headers.get('location')).toBe(`/sso/saml/${connectionId}/start?returnTo=%2Faccount`)
    const forgot = await onPage('/forgot-password')
    const reset = await forgot.b.call('/api/auth/forgot-password', { method: 'POST', body: form({ email: member, _csrf: forgot.csrf }), headers: FORM_POST })
    expect(reset.headers.get('location')).toBe(`/sso/saml/${connectionId}/start?returnTo=%2Faccount`)
    const mail = await login.b.call('/api/auth/email-sign-in', { method: 'POST', body: form({ email: member, method: 'link', _csrf: login.csrf }), headers: FORM_POST })
    expect(mail.headers.get('location')).toBe(`/sso/saml/${connectionId}/start?returnTo=%2Faccount`)
    // the start answers the redirect to the identity provider
    const start = await login.b.call(signedIn.headers.get('location')!)
    expect(start.status).toBe(302)
    expect(start.headers.get('location')).toMatch(/^https:\/\/idp\.example\.test\/sso\?SAMLRequest=/)
  })

  it('signs in an address of another domain with the password as before', async () => {
    const email = freshEmail('sso-required-other')
    const b = browserLike(stack.gateway.url)
    expect((await b.call('/api/auth/signup', { method: 'POST', body: signupBody(email) })).status).toBe(201)
    const res = await browserLike(stack.gateway.url).call('/api/auth/login', { method: 'POST', body: { email, password: PASSWORD } })
    expect(res.status, res.text).toBe(200)
  })
})
