/**
 * Verifying an identity provider's SAMLResponse for one connection. node-saml checks the signature
 * (only what the signature covers is read afterwards), the audience, the time window and the
 * InResponseTo against the requests we sent; around it, the checks it leaves to us:
 * - before parsing: a DTD is refused outright (no entity expansion, no external entities);
 * - the document's shape: one Assertion, a direct child of the Response, and no ID attribute twice
 *   (signature wrapping moves the signed element and puts a forged one where readers look);
 * - the Response's Destination and the SubjectConfirmationData's Recipient are our ACS URL
 *   (SAML 2.0 profiles section 4.1.4.3 and 4.1.4.5);
 * - the assertion's Issuer is the connection's entity id;
 * - single use: the request it answers is marked used, and the assertion ID is remembered for as
 *   long as the assertion could be accepted, each by one atomic set-if-absent.
 * Each failure is a stable code; nothing here throws on bad input.
 */
import type { Profile } from '@node-saml/node-saml'
import type { IamContext } from '../../context'
import { hasDoctype, parseXmlStrict } from './idp-metadata'
import { seenAssertionKey, usedRequestKey } from './saml-request-cache'
import { spUrls, type SamlConnection } from './saml-connections'
import { samlFor } from './saml-sp'

const PROTOCOL = 'urn:oasis:names:tc:SAML:2.0:protocol'
const ASSERTION = 'urn:oasis:names:tc:SAML:2.0:assertion'

export type SamlResponseFailure =
  | 'saml_response_invalid'
  | 'saml_signature_invalid'
  | 'saml_request_unknown'
  | 'saml_replayed'
  | 'saml_expired'
  | 'saml_audience_mismatch'
  | 'saml_destination_mismatch'
  | 'saml_profile_invalid'

/** What a verified assertion says about the person. */
export interface VerifiedAssertion {
  nameId: string
  nameIdFormat: string | null
  /** attribute name -> its values, as strings */
  attributes: Record<string, string[]>
  /** the request it answered; null for an unsolicited response */
  inResponseTo: string | null
}

/** node-saml's error sentences, mapped to our codes (its messages are its API for the cause). */
function codeOfError(error: unknown): SamlResponseFailure {
  const message = error instanceof Error ? error.message : ''
  if (/InResponseTo/i.test(message)) return 'saml_request_unknown'
  if (/audience/i.test(message)) return 'saml_audience_mismatch'
  if (/expired|not yet valid|subject confirmation/i.test(message)) return 'saml_expired'
  if (/signature|signed|assertion from signed data|ID cannot refer|Referenced node/i.test(message)) return 'saml_signature_invalid'
  return 'saml_response_invalid'
}

const COMMENT_NODE = 8

function hasComment(node: Node): boolean {
  for (let child = node.firstChild; child; child = child.nextSibling) {
    if (child.nodeType === COMMENT_NODE || hasComment(child)) return true
  }
  return false
}

/** The structural checks on the raw document; null when it passes. */
function shapeProblem(doc: Document, acsUrl: string): SamlResponseFailure | null {
  const root = doc.documentElement
  if (root.namespaceURI !== PROTOCOL || root.localName !== 'Response') return 'saml_response_invalid'
  const assertions = Array.from(doc.getElementsByTagNameNS(ASSERTION, 'Assertion'))
  const encrypted = Array.from(doc.getElementsByTagNameNS(ASSERTION, 'EncryptedAssertion'))
  // encrypted assertions are not taken: no decryption key of ours is published (saml-sp.ts)
  if (encrypted.length > 0) return 'saml_response_invalid'
  if (assertions.length !== 1 || assertions[0]!.parentNode !== root) return 'saml_signature_invalid'
  // a comment inside the assertion is dropped by exclusive canonicalisation, so the signature still
  // verifies while a reader that stops at the first text node sees `user@evil.com` of
  // `user@evil.com<!---->.example.com`; no identity provider writes one, so it is refused
  if (hasComment(assertions[0]!)) return 'saml_response_invalid'
  const ids = new Set<string>()
  const all = Array.from(doc.getElementsByTagName('*'))
  for (const element of all) {
    for (const name of ['ID', 'Id', 'id']) {
      const id = element.getAttribute(name)
      if (!id) continue
      if (ids.has(id)) return 'saml_signature_invalid'
      ids.add(id)
    }
  }
  if (root.getAttribute('Destination') !== acsUrl) return 'saml_destination_mismatch'
  return null
}

type XmlJs = Record<string, unknown> & { $?: Record<string, string>; _?: string }
const first = (value: unknown): XmlJs | undefined => (Array.isArray(value) ? (value[0] as XmlJs) : undefined)

function textOf(value: unknown): string | null {
  if (typeof value === 'string') return value
  if (value && typeof value === 'object' && typeof (value as XmlJs)._ === 'string') return (value as XmlJs)._!
  return null
}

function attributesOf(profile: Profile): Record<string, string[]> {
  const raw = (profile['attributes'] ?? {}) as Record<string, unknown>
  const out: Record<string, string[]> = {}
  for (const [name, value] of Object.entries(raw)) {
    const values = (Array.isArray(value) ? value : [value]).map(textOf).filter((v): v is string => v !== null)
    if (values.length) out[name] = values
  }
  return out
}

export async function verifySamlResponse(
  ctx: Pick<IamContext, 'config' | 'store'>,
  connection: SamlConnection,
  samlResponse: string,
): Promise<{ ok: true; assertion: VerifiedAssertion } | { ok: false; code: SamlResponseFailure }> {
  if (!/^[A-Za-z0-9+/=\s]+$/.test(samlResponse)) return { ok: false, code: 'saml_response_invalid' }
  const xml = Buffer.from(samlResponse, 'base64').toString('utf8')
  if (hasDoctype(xml)) return { ok: false, code: 'saml_response_invalid' }
  const doc = parseXmlStrict(xml)
  if (!doc) return { ok: false, code: 'saml_response_invalid' }
  const { acsUrl } = spUrls(ctx.config.enterprise.gatewayOrigin, connection.publicId)
  const problem = shapeProblem(doc, acsUrl)
  if (problem) return { ok: false, code: problem }

  let profile: Profile | null
  try {
    profile = (await samlFor(ctx, connection).validatePostResponseAsync({ SAMLResponse: samlResponse })).profile
  } catch (error) {
    return { ok: false, code: codeOfError(error) }
  }
  if (!profile || typeof profile.getAssertion !== 'function') return { ok: false, code: 'saml_response_invalid' }
  // from here on, only the signed assertion is read
  const assertion = (profile.getAssertion() as { Assertion?: XmlJs }).Assertion
  const issuer = textOf(first(assertion?.['Issuer']))
  if (issuer !== connection.idpEntityId) return { ok: false, code: 'saml_signature_invalid' }
  const assertionId = assertion?.$?.['ID']
  if (!assertionId) return { ok: false, code: 'saml_response_invalid' }
  const confirmation = first(first(first(assertion?.['Subject'])?.['SubjectConfirmation'])?.['SubjectConfirmationData'])
  const recipient = confirmation?.$?.['Recipient']
  if (recipient !== undefined && recipient !== acsUrl) return { ok: false, code: 'saml_destination_mismatch' }
  const inResponseTo = confirmation?.$?.['InResponseTo'] ?? (typeof profile.inResponseTo === 'string' ? profile.inResponseTo : null)
  if (!inResponseTo && !connection.allowIdpInitiated) return { ok: false, code: 'saml_request_unknown' }

  const nameId = typeof profile.nameID === 'string' ? profile.nameID.trim() : ''
  if (!nameId || nameId.length > 512) return { ok: false, code: 'saml_profile_invalid' }

  const { clockSkewMs, maxAssertionAgeMs } = ctx.config.enterprise.saml
  // an assertion older than IssueInstant + maxAssertionAgeMs (+ skew) is refused anyway: its ID
  // needs remembering no longer than that
  const fresh = await ctx.store.setIfAbsent(seenAssertionKey(connection.publicId, assertionId), 1, maxAssertionAgeMs + 2 * clockSkewMs)
  if (!fresh) return { ok: false, code: 'saml_replayed' }
  if (inResponseTo) {
    const unused = await ctx.store.setIfAbsent(usedRequestKey(connection.publicId, inResponseTo), 1, ctx.config.enterprise.saml.requestTtlMs)
    if (!unused) return { ok: false, code: 'saml_request_unknown' }
  }
  return {
    ok: true,
    assertion: { nameId, nameIdFormat: typeof profile.nameIDFormat === 'string' ? profile.nameIDFormat : null, attributes: attributesOf(profile), inResponseTo: inResponseTo ?? null },
  }
}
