/**
 * SAML sign-in end to end through the gateway (server/routes/sso/saml/**, docs/enterprise.md):
 * an owner sets everything up through the BFF (a domain proved by a TXT record from a test DNS
 * server, the SAML connection with a group mapping); a person then starts at the gateway, is sent
 * to the identity provider (samlify, with its own key), and the provider's form post to the
 * gateway's ACS ends in the session cookies and /api/auth/session showing the person, a member of
 * the organization with the role of their group. A refused response lands on /sso/error. An account
 * with a second factor is asked for it after the assertion, and the session's `amr` (read from an
 * ID token of the IAM's OpenID Provider, the one place it is released) names the assertion and
 * the second factor (`saml otp mfa`), not a password.
 */
import { createHash, randomBytes } from 'node:crypto'
import { Secret, TOTP } from 'otpauth'
import { describe, expect, it } from 'vitest'
import { createIamClient } from '../../iam/client/iam-client'
import { startDnsServer, type Zone } from '../helpers/dns-server'
import { authnRequestOf, makeIdpKeys } from '../helpers/saml-idp'
import { samlifyIdentityProvider, samlifyLoginResponse } from '../helpers/samlify-idp'
import { browserLike, confirmEmailThrough, freshEmail, hmac, PASSWORD, setupStack } from './bff-harness'

const GATEWAY_ORIGIN = 'https://id.example.test'
const IDP_ENTITY = 'https://idp.samlify.test/metadata'
const IDP_SSO = 'https://idp.samlify.test/sso'

const zones: Record<string, Zone> = {}
const dns = await startDnsServer(zones)
const keys = makeIdpKeys('samlify-idp')
const stack = await setupStack(
  {
    rate_limiters: { oauth: { points: 1000, duration: 60, blockDuration: 60 } },
    enterprise: { gatewayOrigin: GATEWAY_ORIGIN, dnsServers: [dns.server] },
    // the OpenID Provider behind the gateway's public origin, as in production: its ID tokens tell the amr
    oidc: { issuer: `${GATEWAY_ORIGIN}/oidc` },
  },
  {},
  // the test build's client route (routes/__test/oidc-clients)
  { iam: { IAM_TEST_ROUTES: '1' } },
)

type Browser = ReturnType<typeof browserLike>

async function owner(): Promise<Browser> {
  const email = freshEmail('sso-owner')
  const b = browserLike(stack.gateway.url)
  const res = await b.call('/api/auth/signup', { method: 'POST', body: { email, password: PASSWORD, confirmedPassword: PASSWORD, name: 'Owner', termsConsent: 'on' } })
  expect(res.status, res.text).toBe(201)
  await confirmEmailThrough(b, stack.iam, email)
  return b
}

const idp = samlifyIdentityProvider(IDP_ENTITY, IDP_SSO, keys)
/** The identity provider's answer to `requestId`, as samlify builds and signs it, for the SP its metadata describes. */
const samlifyResponse = (spMetadata: string, requestId: string, user: { nameId: string; email: string; displayName: string; group: string }) =>
  samlifyLoginResponse(idp, spMetadata, requestId, { nameId: user.nameId, email: user.email, displayName: user.displayName, groups: [user.group] })

/** The IdP's auto-submitted form: a cross-site POST of SAMLResponse and RelayState to the gateway's ACS. */
function postFromIdp(b: Browser, connectionId: string, samlResponse: string, relayState: string | null) {
  const form = new URLSearchParams({ SAMLResponse: samlResponse, ...(relayState ? { RelayState: relayState } : {}) })
  return b.call(`/sso/saml/${connectionId}/acs`, {
    method: 'POST',
    body: form.toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://idp.samlify.test', 'sec-fetch-site': 'cross-site', 'x-csrf': '', accept: 'text/html' },
  })
}

/** A path of the gateway for a URL the provider built from its public origin. */
const local = (url: string) => (url.startsWith(GATEWAY_ORIGIN) ? url.slice(GATEWAY_ORIGIN.length) : url)

/**
 * The `amr` of the browser's session as an app sees it: an authorization code flow with PKCE of a
 * first-party client (no consent step), the interaction continued as the signed-in account, the
 * code redeemed, the ID token's claim read (its signature is the OIDC tests' concern).
 */
async function amrOf(b: Browser): Promise<string[]> {
  const redirectUri = 'http://127.0.0.1:9/cb'
  const admin = createIamClient({ baseUrl: stack.iam.url, hmac })
  const registered = await admin.request<{ client: { clientId: string }; clientSecret: string }>({ method: 'POST', path: '/__test/oidc-clients', body: { name: 'Amr app', firstParty: true, redirectUris: [redirectUri] } })
  expect(registered.status).toBe(200)
  const { client, clientSecret } = registered.body!
  const verifier = randomBytes(32).toString('base64url')
  const query = new URLSearchParams({
    client_id: client.clientId,
    redirect_uri: redirectUri,
    response_type: 'code',
    scope: 'openid',
    state: randomBytes(8).toString('hex'),
    nonce: randomBytes(8).toString('hex'),
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  })
  let url = `/oidc/auth?${query}`
  let code: string | null = null
  for (let hop = 0; hop < 10 && !code; hop++) {
    const interaction = /^\/interaction\/([\w-]+)$/.exec(url)
    if (interaction) {
      const step = await b.call(`/interaction/${interaction[1]}/login`, { method: 'POST', body: {} })
      expect(step.status, step.text).toBe(200)
      url = local((step.json.data as { redirectTo: string }).redirectTo)
      continue
    }
    const res = await b.call(url, { headers: { accept: 'text/html' } })
    const location = res.headers.get('location')
    expect(location, `${url} answered ${res.status}: ${res.text}`).toBeTruthy()
    if (location!.startsWith(redirectUri)) code = new URL(location!).searchParams.get('code')
    else url = local(new URL(location!, GATEWAY_ORIGIN + url).href)
  }
  expect(code).toBeTruthy()
  const token = await fetch(`${stack.gateway.url}/oidc/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${client.clientId}:${clientSecret}`).toString('base64')}` },
    body: new URLSearchParams({ grant_type: 'authorization_code', code: code!, redirect_uri: redirectUri, code_verifier: verifier }).toString(),
  })
  const tokens = (await token.json()) as { id_token?: string }
  expect(token.status, JSON.stringify(tokens)).toBe(200)
  return (JSON.parse(Buffer.from(tokens.id_token!.split('.')[1]!, 'base64url').toString()) as { amr?: string[] }).amr ?? []
}

describe('SAML sign-in through the gateway', () => {
  let connectionId = ''
  let orgId = ''
  let roleId = ''
  let domain = ''
  let spMetadata = ''

  it('lets an owner prove a domain and set up the connection through the BFF', async () => {
    const b = await owner()
    const org = await b.call('/api/orgs', { method: 'POST', body: { name: 'Samlify Corp', slug: `samlify-${Date.now().toString(36)}` } })
    expect(org.status, org.text).toBe(201)
    orgId = (org.json.data as { org: { id: string } }).org.id
    domain = `samlify${Date.now().toString(36)}.test`
    const added = await b.call(`/api/orgs/${orgId}/domains`, { method: 'POST', body: { domain } })
    expect(added.status, added.text).toBe(201)
    const view = (added.json.data as { domain: { id: string; txt: { name: string; value: string } } }).domain
    zones[view.txt.name] = { txt: [view.txt.value] }
    const verified = await b.call(`/api/orgs/${orgId}/domains/verify`, { method: 'POST', body: { domainId: view.id } })
    expect(verified.status, verified.text).toBe(200)
    const role = await b.call(`/api/orgs/${orgId}/roles`, { method: 'POST', body: { name: 'support', permissions: ['organization:read', 'members:read'] } })
    expect(role.status, role.text).toBe(201)
    roleId = (role.json.data as { role: { id: string } }).role.id
    // the provider's metadata XML through the BFF: larger than a plain form's 8 kB (Entra ID's
    // carries several certificates), read by the IAM; the typed values below then replace it
    const keyDescriptor = (use: string) => `<md:KeyDescriptor use="${use}"><ds:KeyInfo xmlns:ds="http://www.w3.org/2000/09/xmldsig#"><ds:X509Data><ds:X509Certificate>${keys.certBody}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>`
    const metadataXml = `<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="${IDP_ENTITY}"><md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">${keyDescriptor('signing')}${Array.from({ length: 6 }, () => keyDescriptor('encryption')).join('')}<md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="${IDP_SSO}"/></md:IDPSSODescriptor></md:EntityDescriptor>`
    expect(metadataXml.length).toBeGreaterThan(8 * 1024)
    const fromMetadata = await b.call(`/api/orgs/${orgId}/sso`, { method: 'POST', body: { idpMetadataXml: metadataXml } })
    expect(fromMetadata.status, fromMetadata.text).toBe(200)
    expect((fromMetadata.json.data as { connection: { idpSsoUrl: string } }).connection.idpSsoUrl).toBe(IDP_SSO)
    const set = await b.call(`/api/orgs/${orgId}/sso`, {
      method: 'POST',
      body: { idpEntityId: IDP_ENTITY, idpSsoUrl: IDP_SSO, idpCertificate: keys.cert, enabled: true, attributeMapping: { groups: 'groups', groupRoles: { Support: roleId } } },
    })
    expect(set.status, set.text).toBe(200)
    const connection = (set.json.data as { connection: { id: string; sp: { acsUrl: string; metadataUrl: string } } }).connection
    connectionId = connection.id
    expect(connection.sp.acsUrl).toBe(`${GATEWAY_ORIGIN}/sso/saml/${connectionId}/acs`)
    const metadata = await browserLike(stack.gateway.url).call(`/sso/saml/${connectionId}/metadata`)
    expect(metadata.status).toBe(200)
    expect(metadata.headers.get('content-type')).toContain('samlmetadata+xml')
    spMetadata = metadata.text
  })

  it('signs a person in from the identity provider: session cookies, /api/auth/session shows them, a member with the role of their group', async () => {
    const b = browserLike(stack.gateway.url)
    const start = await b.call(`/sso/saml/${connectionId}/start?returnTo=${encodeURIComponent('/orgs')}`)
    expect(start.status).toBe(302)
    const location = start.headers.get('location') ?? ''
    expect(location.startsWith(`${IDP_SSO}?`)).toBe(true)
    const request = authnRequestOf(location)
    const email = `dana@${domain}`
    const { samlResponse } = await samlifyResponse(spMetadata, request.id, { nameId: 'samlify-user-42', email, displayName: 'Dana Samlify', group: 'Support' })
    const landed = await postFromIdp(b, connectionId, samlResponse, request.relayState)
    expect(landed.status, landed.text).toBe(200)
    expect(landed.headers.get('content-type')).toContain('text/html')
    expect(landed.text).toContain('window.location.replace("/orgs")')
    expect(b.jar.get('session')).toMatch(/^[\w-]{43}$/)
    expect(b.jar.get('__Secure-a')).toBeTruthy()
    const session = await b.call('/api/auth/session')
    expect(session.status).toBe(200)
    expect(session.json).toMatchObject({ authenticated: true })
    expect(session.text).toContain(email)
    const orgs = await b.call('/api/orgs')
    expect((orgs.json.data as { orgs: { id: string; role: string }[] }).orgs).toEqual([expect.objectContaining({ id: orgId, role: roleId })])
  })

  it('lands a refused response on the error page with its code, never on JSON', async () => {
    const b = browserLike(stack.gateway.url)
    const start = await b.call(`/sso/saml/${connectionId}/start`)
    const request = authnRequestOf(start.headers.get('location') ?? '')
    const { samlResponse } = await samlifyResponse(spMetadata, request.id, { nameId: 'samlify-user-43', email: `eve@${domain}`, displayName: 'Eve', group: 'Support' })
    const first = await postFromIdp(b, connectionId, samlResponse, null)
    expect(first.status).toBe(200)
    const replayed = await postFromIdp(browserLike(stack.gateway.url), connectionId, samlResponse, null)
    expect(replayed.status).toBe(302)
    expect(replayed.headers.get('location')).toMatch(/^\/sso\/error\?code=saml_(request_unknown|replayed)$/)
    const unknown = await browserLike(stack.gateway.url).call('/sso/saml/00000000-0000-4000-8000-000000000000/start')
    expect(unknown.status).toBe(302)
    expect(unknown.headers.get('location')).toBe('/sso/error?code=sso_connection_not_found')
    const page = await browserLike(stack.gateway.url).call('/sso/error?code=saml_replayed', { headers: { accept: 'text/html' } })
    expect(page.status).toBe(200)
    expect(page.text).toContain('data-testid="sso-error"')
  })

  it('asks an account with a second factor for it after the assertion, and the session amr names saml and the second factor, never pwd', async () => {
    // the first sign-in makes the account; it adds an authenticator app (its address is confirmed: a verified domain)
    const first = browserLike(stack.gateway.url)
    const email = `tess@${domain}`
    const user = { nameId: 'samlify-user-2fa', email, displayName: 'Tess Samlify', group: 'Support' }
    const opened = authnRequestOf((await first.call(`/sso/saml/${connectionId}/start`)).headers.get('location') ?? '')
    expect((await postFromIdp(first, connectionId, (await samlifyResponse(spMetadata, opened.id, user)).samlResponse, null)).status).toBe(200)
    // a sign-in through SAML alone: the assertion is the one method
    expect(await amrOf(first)).toEqual(['saml'])
    const setup = await first.call('/api/auth/totp/setup', { method: 'POST' })
    expect(setup.status, setup.text).toBe(200)
    const totp = new TOTP({ algorithm: 'SHA1', digits: 6, period: 30, secret: Secret.fromBase32((setup.json.data as { secret: string }).secret) })
    expect((await first.call('/api/auth/totp/enable', { method: 'POST', body: { code: totp.generate() } })).status).toBe(200)

    // another browser: the assertion is not the whole sign-in any more
    const b = browserLike(stack.gateway.url)
    const request = authnRequestOf((await b.call(`/sso/saml/${connectionId}/start?returnTo=${encodeURIComponent('/orgs')}`)).headers.get('location') ?? '')
    const landed = await postFromIdp(b, connectionId, (await samlifyResponse(spMetadata, request.id, user)).samlResponse, request.relayState)
    expect(landed.status, landed.text).toBe(200)
    // the sign-in page asks for the step, then goes on where the person was going
    const challenge = /\/login\?returnTo=%2Forgs#second-factor=([\w-]{43})/.exec(landed.text)?.[1]
    expect(challenge, landed.text).toBeTruthy()
    expect(b.jar.get('session')).toBeUndefined()
    // the next step's code (one step of drift ahead is accepted): the enrolment spent this one
    const step = await b.call('/api/auth/second-factor', { method: 'POST', body: { challenge, code: totp.generate({ timestamp: Date.now() + 30_000 }) } })
    expect(step.status, step.text).toBe(200)
    expect(b.jar.get('session')).toMatch(/^[\w-]{43}$/)
    expect(await amrOf(b)).toEqual(['saml', 'otp', 'mfa'])
  })
})
