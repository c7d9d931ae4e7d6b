/**
 * Enterprise sign-in over HTTP (iam/features/enterprise, docs/enterprise.md): domains an owner
 * claims and proves by a TXT record read from a test DNS server, unique among the verified ones;
 * the SAML connection (typed in or from metadata, never with a DTD); and the SAML sign-in at the
 * IAM's ACS with responses signed by a test identity provider's own key: identities keyed by
 * NameID, the linking rule, just-in-time membership with a role from a group, single use of the
 * request. The attacks on the response are in saml-security.security.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PROXY_CONFIG, type Session } from '../helpers/accounts'
import { startDnsServer, type DnsServer, type Zone } from '../helpers/dns-server'
import { authed, dataOf, device, GATEWAY_ORIGIN, newOrg, person, postAcs, samlConnection, startUrl, verifiedDomain } from '../helpers/enterprise'
import { startIam, type IamServer } from '../helpers/iam-server'
import { authnRequestOf, b64, buildResponse, makeIdpKeys, signAssertion, type IdpKeys } from '../helpers/saml-idp'

const zones: Record<string, Zone> = {}
let dns: DnsServer
let iam: IamServer
let keys: IdpKeys
beforeAll(async () => {
  dns = await startDnsServer(zones)
  keys = makeIdpKeys()
  iam = await startIam({
    config: {
      ...PROXY_CONFIG,
      rate_limiters: { signup: { points: 1000, duration: 60, blockDuration: 60 }, oauth: { points: 1000, duration: 60, blockDuration: 60 } },
      anomalies: { velocity: { count: 50 } },
      enterprise: { gatewayOrigin: GATEWAY_ORIGIN, dnsServers: [dns.server], maxDomainsPerOrg: 3 },
    },
  })
}, 240_000)
afterAll(async () => {
  await iam?.stop()
  await dns?.stop()
})

let domains = 0
const freshDomain = () => `corp${Date.now().toString(36)}${++domains}.test`

describe('verified domains', () => {
  it('normalises a claimed domain, refuses a public suffix alone and a non-domain', async () => {
    const owner = await person(iam)
    const org = await newOrg(iam, owner)
    const added = await authed(iam, owner, 'POST', `/orgs/${org}/domains`, { domain: '  BÜCHER-Corp.Test. ' })
    expect(added.status).toBe(201)
    const view = (await dataOf(added)).domain as { domain: string; verified: boolean; txt: { name: string; value: string } }
    expect(view.domain).toBe('xn--bcher-corp-9db.test')
    expect(view.verified).toBe(false)
    expect(view.txt.name).toBe('_identity-platform.xn--bcher-corp-9db.test')
    expect(view.txt.value).toMatch(/^identity-platform-verification=[A-Za-z0-9_-]{22}$/)
    for (const [domain, code] of [['com', 'domain_public_suffix'], ['co.uk', 'domain_public_suffix'], ['not a domain', 'domain_invalid'], ['10.0.0.1', 'domain_invalid']]) {
      const res = await authed(iam, owner, 'POST', `/orgs/${org}/domains`, { domain })
      expect(res.status, domain).toBe(400)
      expect(((await res.json()) as { code: string }).code, domain).toBe(code)
    }
  })

  it('verifies a domain only once its TXT record holds the token, at the prefixed name or the apex', async () => {
    const owner = await person(iam)
    const org = await newOrg(iam, owner)
    const domain = freshDomain()
    const view = (await dataOf(await authed(iam, owner, 'POST', `/orgs/${org}/domains`, { domain }))).domain as { id: string; txt: { value: string } }
    const missing = await authed(iam, owner, 'POST', `/orgs/${org}/domains/verify`, { domainId: view.id })
    expect(missing.status).toBe(409)
    expect(((await missing.json()) as { code: string }).code).toBe('domain_record_missing')
    zones[domain] = { txt: ['v=spf1 -all', 'identity-platform-verification=wrong'] }
    expect((await authed(iam, owner, 'POST', `/orgs/${org}/domains/verify`, { domainId: view.id })).status).toBe(409)
    zones[domain] = { txt: ['v=spf1 -all', view.txt.value] }
    const ok = await authed(iam, owner, 'POST', `/orgs/${org}/domains/verify`, { domainId: view.id })
    expect(ok.status).toBe(200)
    expect(((await dataOf(ok)).domain as { verified: boolean }).verified).toBe(true)
  })

  it('lets only one organization hold a domain verified', async () => {
    const [ann, bob] = [await person(iam), await person(iam)]
    const [orgA, orgB] = [await newOrg(iam, ann), await newOrg(iam, bob)]
    const domain = freshDomain()
    const claimB = (await dataOf(await authed(iam, bob, 'POST', `/orgs/${orgB}/domains`, { domain }))).domain as { id: string; txt: { name: string; value: string } }
    await verifiedDomain(iam, ann, orgA, domain, zones)
    // bob publishes his own token too: the domain is still held by ann's organization
    zones[claimB.txt.name] = { txt: [claimB.txt.value] }
    const verify = await authed(iam, bob, 'POST', `/orgs/${orgB}/domains/verify`, { domainId: claimB.id })
    expect(verify.status).toBe(409)
    expect(((await verify.json()) as { code: string }).code).toBe('domain_taken')
    const again = await authed(iam, bob, 'POST', `/orgs/${orgB}/domains`, { domain: `${freshDomain()}` })
    expect(again.status).toBe(201)
    const claimTaken = await authed(iam, bob, 'POST', `/orgs/${orgB}/domains`, { domain: domain.toUpperCase() })
    expect(claimTaken.status).toBe(409)
  })

  it('caps the domains of an organization and lets a member without owners:manage only read them', async () => {
    const owner = await person(iam)
    const org = await newOrg(iam, owner)
    for (let i = 0; i < 3; i++) expect((await authed(iam, owner, 'POST', `/orgs/${org}/domains`, { domain: freshDomain() })).status).toBe(201)
    const over = await authed(iam, owner, 'POST', `/orgs/${org}/domains`, { domain: freshDomain() })
    expect(over.status).toBe(409)
    expect(((await over.json()) as { code: string }).code).toBe('domain_limit')
    const list = (await dataOf(await authed(iam, owner, 'GET', `/orgs/${org}/domains`))).domains as { id: string }[]
    expect(list).toHaveLength(3)
    const removed = await authed(iam, owner, 'POST', `/orgs/${org}/domains/remove`, { domainId: list[0]!.id })
    expect(removed.status).toBe(200)
    const outsider = await person(iam)
    expect((await authed(iam, outsider, 'GET', `/orgs/${org}/domains`)).status).toBe(404)
  })
})

describe('the SAML connection', () => {
  it('reads the provider from metadata and refuses metadata with a DTD', async () => {
    const owner = await person(iam)
    const org = await newOrg(iam, owner)
    const metadata = `<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="https://idp.meta.test/e"><md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol"><md:KeyDescriptor use="signing"><ds:KeyInfo xmlns:ds="http://www.w3.org/2000/09/xmldsig#"><ds:X509Data><ds:X509Certificate>${keys.certBody}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor><md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="https://idp.meta.test/sso"/></md:IDPSSODescriptor></md:EntityDescriptor>`
    const ok = await authed(iam, owner, 'POST', `/orgs/${org}/sso`, { idpMetadataXml: metadata })
    expect(ok.status, await ok.clone().text()).toBe(200)
    const connection = (await dataOf(ok)).connection as { id: string; idpEntityId: string; idpSsoUrl: string; enabled: boolean; sp: { acsUrl: string; entityId: string } }
    expect([connection.idpEntityId, connection.idpSsoUrl, connection.enabled]).toEqual(['https://idp.meta.test/e', 'https://idp.meta.test/sso', false])
    expect(connection.sp.acsUrl).toBe(`${GATEWAY_ORIGIN}/sso/saml/${connection.id}/acs`)
    const laughs = `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]>${metadata.replace('https://idp.meta.test/e', '&lol2;')}`
    const refused = await authed(iam, owner, 'POST', `/orgs/${org}/sso`, { idpMetadataXml: laughs })
    expect(refused.status).toBe(400)
    expect(((await refused.json()) as { code: string }).code).toBe('saml_metadata_invalid')
    const badCert = await authed(iam, owner, 'POST', `/orgs/${org}/sso`, { idpEntityId: 'e', idpSsoUrl: 'https://idp/sso', idpCertificate: 'bm90IGEgY2VydA==' })
    expect(((await badCert.json()) as { code: string }).code).toBe('saml_certificate_invalid')
  })

  it('answers a disabled connection like an unknown one on the public endpoints', async () => {
    const owner = await person(iam)
    const org = await newOrg(iam, owner)
    const { id } = await samlConnection(iam, owner, org, keys, { enabled: false })
    const client = await device(iam)
    for (const path of [`/sso/saml/${id}/metadata`, `/sso/saml/00000000-0000-4000-8000-000000000000/metadata`]) {
      const res = await fetch(`${iam.url}${path}`, { headers: { 'x-forwarded-for': client.ip } })
      expect(res.status, path).toBe(404)
    }
  })
})

describe('SAML sign-in', () => {
  let owner: Session
  let org: string
  let domain: string
  let conn: { id: string; entityId: string; acsUrl: string }
  let roleId: string
  beforeAll(async () => {
    owner = await person(iam)
    org = await newOrg(iam, owner)
    domain = freshDomain()
    await verifiedDomain(iam, owner, org, domain, zones)
    roleId = ((await dataOf(await authed(iam, owner, 'POST', `/orgs/${org}/roles`, { name: 'engineer', permissions: ['organization:read', 'members:read'] }))).role as { id: string }).id
    conn = await samlConnection(iam, owner, org, keys, { attributeMapping: { groups: 'groups', groupRoles: { Engineering: roleId, 'IT Admins': 'admin' } } })
  })

  const respond = (inResponseTo: string | null, nameId: string, email: string, more: { groups?: string[] } = {}) =>
    b64(
      signAssertion(
        buildResponse({
          issuer: 'https://idp.example.test/entity',
          nameId,
          audience: conn.entityId,
          destination: conn.acsUrl,
          recipient: conn.acsUrl,
          inResponseTo,
          attributes: { email, displayName: 'Dana Example', ...(more.groups ? { groups: more.groups } : {}) },
        }).xml,
        keys,
      ),
    )

  it('publishes service provider metadata naming the gateway ACS URL', async () => {
    const res = await fetch(`${iam.url}/sso/saml/${conn.id}/metadata`, { headers: { 'x-forwarded-for': '203.0.113.7' } })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toContain('samlmetadata+xml')
    const xml = await res.text()
    expect(xml).toContain(`entityID="${conn.entityId}"`)
    expect(xml).toContain(`Location="${conn.acsUrl}"`)
    expect(xml).toContain('WantAssertionsSigned="true"')
  })

  it('signs a new person in, confirmed in a verified domain, a member with the role of the group', async () => {
    const client = await device(iam)
    const url = await startUrl(iam, conn.id, client, '/orgs')
    expect(url.startsWith('https://idp.example.test/sso?')).toBe(true)
    const request = authnRequestOf(url)
    expect(request.relayState).toBe('/orgs')
    const email = `dana@${domain}`
    const res = await postAcs(iam, conn.id, client, respond(request.id, 'okta|00u1', email, { groups: ['Engineering'] }), request.relayState!)
    expect(res.status, JSON.stringify(res.body)).toBe(201)
    expect(res.body.returnTo).toBe('/orgs')
    expect(res.session).toBeTruthy()
    const session = { ...client, email, password: '', accessToken: res.body.accessToken as string, refreshToken: res.session! } as Session
    const orgs = (await dataOf(await authed(iam, session, 'GET', '/orgs'))).orgs as { id: string; role: string }[]
    expect(orgs.find((o) => o.id === org)?.role).toBe(roleId)
    const members = (await dataOf(await authed(iam, owner, 'GET', `/orgs/${org}/members`))).members as { email: string; name: string; role: string }[]
    expect(members.find((m) => m.email === email)).toMatchObject({ name: 'Dana Example', role: roleId })
    // the address was confirmed by the verified domain: a route that needs a confirmed address lets the account in
    const invitationsRead = await authed(iam, session, 'GET', '/auth/sign-in-methods')
    expect(invitationsRead.status).toBe(200)
    // the same request cannot be answered twice
    const again = await postAcs(iam, conn.id, client, respond(request.id, 'okta|00u1', email))
    expect(again.status).toBe(400)
    expect(again.body.code).toBe('saml_request_unknown')
  })

  it('keys accounts by NameID: the same person signs in again whatever address the provider sends', async () => {
    const client = await device(iam)
    const first = authnRequestOf(await startUrl(iam, conn.id, client))
    const created = await postAcs(iam, conn.id, client, respond(first.id, 'okta|00u2', `erin@${domain}`, { groups: ['IT Admins'] }))
    expect(created.status).toBe(201)
    const second = authnRequestOf(await startUrl(iam, conn.id, client))
    const renamed = await postAcs(iam, conn.id, client, respond(second.id, 'okta|00u2', `erin.new@${domain}`))
    expect(renamed.status).toBe(201)
    const claims = (t: string) => JSON.parse(Buffer.from(t.split('.')[1]!, 'base64url').toString()) as { sub: string }
    expect(claims(renamed.body.accessToken as string).sub).toBe(claims(created.body.accessToken as string).sub)
  })

  it('links an existing account only when its address is confirmed and in a verified domain', async () => {
    const linked = await person(iam, `frank@${domain}`)
    const client = await device(iam)
    const req = authnRequestOf(await startUrl(iam, conn.id, client))
    const res = await postAcs(iam, conn.id, client, respond(req.id, 'okta|frank', linked.email))
    expect(res.status, JSON.stringify(res.body)).toBe(201)
    const claims = JSON.parse(Buffer.from((res.body.accessToken as string).split('.')[1]!, 'base64url').toString()) as { sub: string }
    const own = JSON.parse(Buffer.from(linked.accessToken.split('.')[1]!, 'base64url').toString()) as { sub: string }
    expect(claims.sub).toBe(own.sub)

    // an address outside the organization's verified domains is never linked
    const outside = await person(iam, `grace@elsewhere-${Date.now().toString(36)}.test`)
    const req2 = authnRequestOf(await startUrl(iam, conn.id, client))
    const refused = await postAcs(iam, conn.id, client, respond(req2.id, 'okta|grace', outside.email))
    expect(refused.status).toBe(409)
    expect(refused.body.code).toBe('email_taken')
  })

  it('refuses the sign-in of a person the organization provisioning deactivated, and lets them in again once reactivated', async () => {
    const client = await device(iam)
    const email = `frank@${domain}`
    const first = authnRequestOf(await startUrl(iam, conn.id, client))
    expect((await postAcs(iam, conn.id, client, respond(first.id, 'okta|00u9', email))).status).toBe(201)
    // the organization's SCIM client links the member and turns them off (RFC 7644 3.5.2 PATCH)
    const scimToken = ((await dataOf(await authed(iam, owner, 'POST', `/orgs/${org}/scim/token`))) as { token: string }).token
    const scim = (method: string, path: string, body?: unknown) =>
      fetch(`${iam.url}/scim/v2${path}`, {
        method,
        headers: { authorization: `Bearer ${scimToken}`, 'content-type': 'application/scim+json', 'x-forwarded-for': '203.0.113.7' },
        body: body === undefined ? undefined : JSON.stringify(body),
      })
    const linked = await scim('POST', '/Users', { schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], userName: email, active: true })
    expect(linked.status).toBe(201)
    const scimId = ((await linked.json()) as { id: string }).id
    const active = (value: boolean) => scim('PATCH', `/Users/${scimId}`, { schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'], Operations: [{ op: 'replace', path: 'active', value }] })
    expect((await active(false)).status).toBe(200)
    const refused = authnRequestOf(await startUrl(iam, conn.id, client))
    const res = await postAcs(iam, conn.id, client, respond(refused.id, 'okta|00u9', email))
    expect(res.status).toBe(403)
    expect(res.body.code).toBe('sso_access_removed')
    expect(res.session).toBeFalsy()
    expect((await active(true)).status).toBe(200)
    const again = authnRequestOf(await startUrl(iam, conn.id, client))
    const back = await postAcs(iam, conn.id, client, respond(again.id, 'okta|00u9', email))
    // a refusal then reads as its code (saml_replayed, saml_request_unknown, ...), not a bare status
    expect(back.status, JSON.stringify(back.body)).toBe(201)
  })
})
