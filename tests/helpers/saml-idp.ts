/**
 * A SAML 2.0 identity provider for tests, signing with its own key (xml-crypto, the signer
 * node-saml itself verifies with): a self-signed certificate made by the openssl command, a
 * Response with one Assertion built from options, the assertion and/or the response signed with
 * an enveloped RSA-SHA256 signature (exclusive canonicalisation, as Okta and Entra ID sign). The
 * signature-wrapping tests rearrange the signed XML this produces.
 */
import { spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { inflateRawSync } from 'node:zlib'
import { SignedXml } from 'xml-crypto'

export interface IdpKeys {
  privateKey: string
  cert: string
  /** the certificate's base64 body, as metadata carries it */
  certBody: string
}

/** A fresh RSA key and self-signed certificate (valid two days). */
export function makeIdpKeys(cn = 'test-idp'): IdpKeys {
  const dir = mkdtempSync(join(tmpdir(), 'saml-idp-'))
  try {
    const run = spawnSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-subj', `/CN=${cn}`, '-days', '2', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { stdio: 'pipe' })
    if (run.status !== 0) throw new Error(`openssl failed: ${run.stderr.toString()}`)
    const cert = readFileSync(join(dir, 'cert.pem'), 'utf8')
    return { privateKey: readFileSync(join(dir, 'key.pem'), 'utf8'), cert, certBody: cert.replace(/-----[^-]+-----|\s+/g, '') }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

export const samlId = () => `_${randomBytes(16).toString('hex')}`

export interface AssertionOptions {
  issuer: string
  nameId: string
  nameIdFormat?: string
  audience: string
  /** the Response's Destination; null leaves it out */
  destination: string | null
  recipient: string
  inResponseTo?: string | null
  attributes?: Record<string, string | string[]>
  /** the assertion's validity, from now */
  notBeforeMs?: number
  notOnOrAfterMs?: number
  /** the IssueInstant, from now (negative: in the past) */
  issuedMs?: number
  responseId?: string
  assertionId?: string
  now?: number
}

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z')
const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')

/** An unsigned Response with one Assertion. */
export function buildResponse(o: AssertionOptions): { xml: string; responseId: string; assertionId: string } {
  const now = o.now ?? Date.now()
  const issued = iso(now + (o.issuedMs ?? 0))
  const responseId = o.responseId ?? samlId()
  const assertionId = o.assertionId ?? samlId()
  const irt = o.inResponseTo ? ` InResponseTo="${esc(o.inResponseTo)}"` : ''
  const attrs = Object.entries(o.attributes ?? {})
    .map(([name, value]) => `<saml:Attribute Name="${esc(name)}">${(Array.isArray(value) ? value : [value]).map((v) => `<saml:AttributeValue>${esc(v)}</saml:AttributeValue>`).join('')}</saml:Attribute>`)
    .join('')
  const xml =
    `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${responseId}" Version="2.0" IssueInstant="${issued}"${o.destination === null ? '' : ` Destination="${esc(o.destination)}"`}${irt}>` +
    `<saml:Issuer>${esc(o.issuer)}</saml:Issuer>` +
    `<samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>` +
    `<saml:Assertion ID="${assertionId}" Version="2.0" IssueInstant="${issued}">` +
    `<saml:Issuer>${esc(o.issuer)}</saml:Issuer>` +
    `<saml:Subject><saml:NameID Format="${o.nameIdFormat ?? 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent'}">${esc(o.nameId)}</saml:NameID>` +
    `<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer"><saml:SubjectConfirmationData NotOnOrAfter="${iso(now + (o.notOnOrAfterMs ?? 5 * 60_000))}" Recipient="${esc(o.recipient)}"${irt}/></saml:SubjectConfirmation></saml:Subject>` +
    `<saml:Conditions NotBefore="${iso(now + (o.notBeforeMs ?? -60_000))}" NotOnOrAfter="${iso(now + (o.notOnOrAfterMs ?? 5 * 60_000))}"><saml:AudienceRestriction><saml:Audience>${esc(o.audience)}</saml:Audience></saml:AudienceRestriction></saml:Conditions>` +
    `<saml:AuthnStatement AuthnInstant="${issued}" SessionIndex="${assertionId}"><saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>` +
    (attrs ? `<saml:AttributeStatement>${attrs}</saml:AttributeStatement>` : '') +
    `</saml:Assertion></samlp:Response>`
  return { xml, responseId, assertionId }
}

const C14N = 'http://www.w3.org/2001/10/xml-exc-c14n#'

function sign(xml: string, keys: IdpKeys, element: 'Assertion' | 'Response'): string {
  const sig = new SignedXml({ privateKey: keys.privateKey, publicCert: keys.cert, signatureAlgorithm: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256', canonicalizationAlgorithm: C14N })
  const xpath = element === 'Assertion' ? "/*[local-name(.)='Response']/*[local-name(.)='Assertion']" : "/*[local-name(.)='Response']"
  sig.addReference({ xpath, transforms: ['http://www.w3.org/2000/09/xmldsig#enveloped-signature', C14N], digestAlgorithm: 'http://www.w3.org/2001/04/xmlenc#sha256' })
  sig.computeSignature(xml, { location: { reference: `${xpath}/*[local-name(.)='Issuer']`, action: 'after' } })
  return sig.getSignedXml()
}

/** The assertion signed (the usual), optionally the response around it too. */
export function signAssertion(xml: string, keys: IdpKeys): string {
  return sign(xml, keys, 'Assertion')
}

export function signResponse(xml: string, keys: IdpKeys): string {
  return sign(xml, keys, 'Response')
}

export const b64 = (xml: string) => Buffer.from(xml, 'utf8').toString('base64')

/** The AuthnRequest's ID from an HTTP-Redirect binding URL (SAMLRequest: deflated, base64). */
export function authnRequestOf(url: string): { id: string; xml: string; relayState: string | null } {
  const params = new URL(url).searchParams
  const xml = inflateRawSync(Buffer.from(params.get('SAMLRequest') ?? '', 'base64')).toString('utf8')
  const id = /\sID="([^"]+)"/.exec(xml)?.[1]
  if (!id) throw new Error(`no ID in the AuthnRequest: ${xml}`)
  return { id, xml, relayState: params.get('RelayState') }
}
