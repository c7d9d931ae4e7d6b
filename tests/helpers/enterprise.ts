/**
 * Set-up shared by the enterprise sign-in tests (tests/iam/enterprise-*.test.ts, saml-security):
 * an owner with an organization, a domain proved through the test DNS server, and a SAML
 * connection to a test identity provider (tests/helpers/saml-idp.ts).
 */
import { expect } from 'vitest'
import { call, newDevice, setCookieValue, type Client, type Session } from './accounts'
import { signupConfirmed } from './confirm-email'
import type { DnsServer, Zone } from './dns-server'
import type { IamServer, Json } from './iam-server'
import type { IdpKeys } from './saml-idp'

export const GATEWAY_ORIGIN = 'https://id.example.test'

export const authed = (iam: IamServer, s: Session, method: string, path: string, body?: unknown) =>
  call(iam, method, path, { client: s, cookies: { session: s.refreshToken }, bearer: s.accessToken, body })
export const dataOf = async (res: Response) => ((await res.json()) as { data: Json }).data

let ip = 0
export const person = (iam: IamServer, email?: string) => signupConfirmed(iam, { dataDir: iam.dataDir }, { client: { ip: `198.51.100.${(++ip % 250) + 1}` }, ...(email ? { email } : {}) })

let slugs = 0
export async function newOrg(iam: IamServer, owner: Session): Promise<string> {
  const res = await authed(iam, owner, 'POST', '/orgs', { name: 'Acme', slug: `acme-${Date.now().toString(36)}-${++slugs}` })
  expect(res.status).toBe(201)
  return ((await dataOf(res)).org as { id: string }).id
}

/** Claims `domain` for the organization, publishes its TXT record in `zones`, verifies it. */
export async function verifiedDomain(iam: IamServer, owner: Session, orgId: string, domain: string, zones: Record<string, Zone>): Promise<string> {
  const added = await authed(iam, owner, 'POST', `/orgs/${orgId}/domains`, { domain })
  expect(added.status).toBe(201)
  const view = (await dataOf(added)).domain as { id: string; txt: { name: string; value: string } }
  zones[view.txt.name] = { txt: [view.txt.value] }
  const verified = await authed(iam, owner, 'POST', `/orgs/${orgId}/domains/verify`, { domainId: view.id })
  expect(verified.status, await verified.clone().text()).toBe(200)
  return view.id
}

export interface Connection {
  id: string
  entityId: string
  acsUrl: string
}

export async function samlConnection(iam: IamServer, owner: Session, orgId: string, keys: IdpKeys, more: Json = {}): Promise<Connection> {
  const res = await authed(iam, owner, 'POST', `/orgs/${orgId}/sso`, {
    idpEntityId: 'https://idp.example.test/entity',
    idpSsoUrl: 'https://idp.example.test/sso',
    idpCertificate: keys.cert,
    enabled: true,
    ...more,
  })
  expect(res.status, await res.clone().text()).toBe(200)
  const connection = (await dataOf(res)).connection as { id: string; sp: { entityId: string; acsUrl: string } }
  return { id: connection.id, entityId: connection.sp.entityId, acsUrl: connection.sp.acsUrl }
}

/** Starts a sign-in at the IAM: the identity provider URL (with the AuthnRequest). */
export async function startUrl(iam: IamServer, connectionId: string, client: Client, returnTo = '/account'): Promise<string> {
  const res = await call(iam, 'GET', `/sso/saml/${connectionId}/start?returnTo=${encodeURIComponent(returnTo)}`, { client })
  expect(res.status, await res.clone().text()).toBe(200)
  return ((await dataOf(res)) as { redirectUrl: string }).redirectUrl
}

export async function postAcs(iam: IamServer, connectionId: string, client: Client, samlResponse: string, relayState?: string): Promise<{ status: number; body: Json; session?: string }> {
  const res = await call(iam, 'POST', `/sso/saml/${connectionId}/acs`, { client, body: { SAMLResponse: samlResponse, ...(relayState ? { RelayState: relayState } : {}) } })
  return { status: res.status, body: (await res.json()) as Json, session: setCookieValue(res, 'session') }
}

export const device = (iam: IamServer) => newDevice(iam, { ip: `203.0.113.${(++ip % 250) + 1}` })

export type { DnsServer }
