/**
 * Attacks on the SAML assertion consumer service (features/enterprise/saml-response.ts), over HTTP
 * at the IAM's ACS with responses signed by a test identity provider's own key (xml-crypto, the
 * signer node-saml verifies with). The attacker holds a genuinely signed assertion for their own
 * NameID and rearranges it to be read as the victim: the eight signature-wrapping variants of
 * Somorovsky et al., "On Breaking SAML: Be Whoever You Want to Be" (USENIX Security 2012), a
 * comment in the NameID, an unsigned assertion inside a signed response, duplicate IDs, a foreign
 * signer, and the checks around the signature: expiry, audience, destination, recipient, replay,
 * unsolicited responses, entity expansion. Each is refused with a 4xx and its own code, and never
 * opens a session.
 */
import { DOMParser, XMLSerializer } from '@xmldom/xmldom'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PROXY_CONFIG, type Client, type Session } from '../helpers/accounts'
import { startDnsServer, type DnsServer, type Zone } from '../helpers/dns-server'
import { device, GATEWAY_ORIGIN, newOrg, person, postAcs, samlConnection, startUrl, verifiedDomain, type Connection } from '../helpers/enterprise'
import { startIam, type IamServer } from '../helpers/iam-server'
import { authnRequestOf, b64, buildResponse, makeIdpKeys, samlId, signAssertion, signResponse, type AssertionOptions, type IdpKeys } from '../helpers/saml-idp'

const SAML = 'urn:oasis:names:tc:SAML:2.0:assertion'
const PROTOCOL = 'urn:oasis:names:tc:SAML:2.0:protocol'
const DSIG = 'http://www.w3.org/2000/09/xmldsig#'
const ISSUER = 'https://idp.example.test/entity'

const zones: Record<string, Zone> = {}
let dns: DnsServer
let iam: IamServer
let keys: IdpKeys
let owner: Session
let domain: string
let conn: Connection
/** a connection of another organization that accepts unsolicited (IdP-initiated) responses */
let open: Connection
let victimSub: string

beforeAll(async () => {
  dns = await startDnsServer(zones)
  keys = makeIdpKeys()
  iam = await startIam({
    config: {
      ...PROXY_CONFIG,
      rate_limiters: { signup: { points: 1000, duration: 60, blockDuration: 60 }, oauth: { points: 1000, duration: 60, blockDuration: 60 } },
      anomalies: { velocity: { count: 50 } },
      enterprise: { gatewayOrigin: GATEWAY_ORIGIN, dnsServers: [dns.server] },
    },
  })
  owner = await person(iam)
  const org = await newOrg(iam, owner)
  domain = `victim${Date.now().toString(36)}.test`
  await verifiedDomain(iam, owner, org, domain, zones)
  conn = await samlConnection(iam, owner, org, keys)
  const other = await person(iam)
  open = await samlConnection(iam, other, await newOrg(iam, other), keys, { allowIdpInitiated: true })
  // the victim signs in once, genuinely: the account the attacks try to reach
  const client = await device(iam)
  const req = authnRequestOf(await startUrl(iam, conn.id, client))
  const res = await postAcs(iam, conn.id, client, b64(signAssertion(responseXml({ inResponseTo: req.id, nameId: 'victim', email: `victim@${domain}` }), keys)))
  expect(res.status, JSON.stringify(res.body)).toBe(201)
  victimSub = subOf(res.body.accessToken as string)
}, 240_000)
afterAll(async () => {
  await iam?.stop()
  await dns?.stop()
})

const subOf = (token: string) => (JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { sub: string }).sub

function responseXml(o: Partial<AssertionOptions> & { nameId: string; email: string; target?: Connection }): string {
  const target = o.target ?? conn
  return buildResponse({
    issuer: ISSUER,
    audience: target.entityId,
    destination: target.acsUrl,
    recipient: target.acsUrl,
    ...o,
    attributes: { email: o.email, ...o.attributes },
  }).xml
}

/** A fresh AuthnRequest of a fresh device: the attacker starts a real sign-in. */
async function started(target = conn): Promise<{ client: Client; id: string }> {
  const client = await device(iam)
  return { client, id: authnRequestOf(await startUrl(iam, target.id, client)).id }
}

/** The attacker's own genuinely signed assertion (assertion signed, and the response too when asked). */
function attackerSigned(inResponseTo: string, opts: { signResponseToo?: boolean } = {}): string {
  const signed = signAssertion(responseXml({ inResponseTo, nameId: 'attacker', email: `attacker@${domain}` }), keys)
  return opts.signResponseToo ? signResponse(signed, keys) : signed
}

const parse = (xml: string) => new DOMParser().parseFromString(xml, 'text/xml')
const serialize = (doc: Document) => new XMLSerializer().serializeToString(doc)
const child = (el: Element, ns: string, name: string) => Array.from(el.childNodes).find((n): n is Element => (n as Element).namespaceURI === ns && (n as Element).localName === name)
const assertionIn = (doc: Document) => child(doc.documentElement, SAML, 'Assertion')!

/** Rewrites the assertion (a clone) to name the victim. */
function asVictim(assertion: Element, opts: { keepSignature: boolean; newId?: string }): Element {
  const evil = assertion.cloneNode(true) as Element
  if (!opts.keepSignature) {
    const sig = child(evil, DSIG, 'Signature')
    if (sig) evil.removeChild(sig)
  }
  if (opts.newId) evil.setAttribute('ID', opts.newId)
  const nameId = evil.getElementsByTagNameNS(SAML, 'NameID')[0]!
  nameId.textContent = 'victim'
  for (const value of Array.from(evil.getElementsByTagNameNS(SAML, 'AttributeValue'))) value.textContent = `victim@${domain}`
  return evil
}

function dsObject(doc: Document, content: Node): Element {
  const object = doc.createElementNS(DSIG, 'ds:Object')
  object.appendChild(content)
  return object
}

/** The eight wrapping attacks, each from the attacker's signed document. */
const WRAPPINGS: Record<string, (signed: string) => string> = {
  // XSW1: a new response with the victim's assertion; the original signed response inside its Signature
  XSW1: (signed) => {
    const doc = parse(signed)
    const original = doc.documentElement.cloneNode(true) as Element
    const root = doc.documentElement
    root.setAttribute('ID', samlId())
    root.replaceChild(asVictim(assertionIn(doc), { keepSignature: false, newId: samlId() }), assertionIn(doc))
    const sig = child(root, DSIG, 'Signature')!
    sig.appendChild(dsObject(doc, original))
    return serialize(doc)
  },
  // XSW2: the same, with the original signed response beside the signature (detached)
  XSW2: (signed) => {
    const doc = parse(signed)
    const original = doc.documentElement.cloneNode(true) as Element
    const root = doc.documentElement
    root.setAttribute('ID', samlId())
    root.replaceChild(asVictim(assertionIn(doc), { keepSignature: false, newId: samlId() }), assertionIn(doc))
    const sig = child(root, DSIG, 'Signature')!
    root.insertBefore(original, sig)
    return serialize(doc)
  },
  // XSW3: the victim's assertion (new ID) before the signed original, both children of the response
  XSW3: (signed) => {
    const doc = parse(signed)
    const original = assertionIn(doc)
    doc.documentElement.insertBefore(asVictim(original, { keepSignature: false, newId: samlId() }), original)
    return serialize(doc)
  },
  // XSW4: the victim's assertion in the original's place, the signed original inside it
  XSW4: (signed) => {
    const doc = parse(signed)
    const original = assertionIn(doc)
    const evil = asVictim(original, { keepSignature: false, newId: samlId() })
    doc.documentElement.replaceChild(evil, original)
    evil.appendChild(original)
    return serialize(doc)
  },
  // XSW5: the signed assertion changed to the victim (signature kept), an unsigned copy of the original appended
  XSW5: (signed) => {
    const doc = parse(signed)
    const original = assertionIn(doc)
    const copy = original.cloneNode(true) as Element
    copy.removeChild(child(copy, DSIG, 'Signature')!)
    doc.documentElement.replaceChild(asVictim(original, { keepSignature: true }), original)
    doc.documentElement.appendChild(copy)
    return serialize(doc)
  },
  // XSW6: the victim's assertion with the signature, the original (unsigned copy) inside the signature
  XSW6: (signed) => {
    const doc = parse(signed)
    const original = assertionIn(doc)
    const copy = original.cloneNode(true) as Element
    copy.removeChild(child(copy, DSIG, 'Signature')!)
    const evil = asVictim(original, { keepSignature: true })
    doc.documentElement.replaceChild(evil, original)
    child(evil, DSIG, 'Signature')!.appendChild(dsObject(doc, copy))
    return serialize(doc)
  },
  // XSW7: the signed original inside an Extensions element, the victim's assertion (same ID) in its place
  XSW7: (signed) => {
    const doc = parse(signed)
    const original = assertionIn(doc)
    const extensions = doc.createElementNS(PROTOCOL, 'samlp:Extensions')
    doc.documentElement.replaceChild(asVictim(original, { keepSignature: false }), original)
    extensions.appendChild(original)
    doc.documentElement.insertBefore(extensions, assertionIn(doc))
    return serialize(doc)
  },
  // XSW8: the victim's assertion with the signature; an unsigned copy of the original in a ds:Object of it
  XSW8: (signed) => {
    const doc = parse(signed)
    const original = assertionIn(doc)
    const copy = original.cloneNode(true) as Element
    copy.removeChild(child(copy, DSIG, 'Signature')!)
    const evil = asVictim(original, { keepSignature: true })
    doc.documentElement.replaceChild(evil, original)
    const sig = child(evil, DSIG, 'Signature')!
    sig.appendChild(dsObject(doc, copy))
    return serialize(doc)
  },
}

/** Posts `xml` (base64) and expects a 4xx with `code`, no session, and never the victim. */
async function refused(target: Connection, client: Client, xml: string, codes: readonly string[]) {
  const res = await postAcs(iam, target.id, client, b64(xml))
  expect(res.status, JSON.stringify(res.body)).toBeGreaterThanOrEqual(400)
  expect(res.status).toBeLessThan(500)
  expect(codes, JSON.stringify(res.body)).toContain(res.body.code)
  expect(res.session).toBeUndefined()
  if (typeof res.body.accessToken === 'string') expect(subOf(res.body.accessToken)).not.toBe(victimSub)
  return res
}

describe('signature wrapping', () => {
  for (const [name, wrap] of Object.entries(WRAPPINGS)) {
    it(`refuses ${name} and signs nobody in`, async () => {
      const { client, id } = await started()
      await refused(conn, client, wrap(attackerSigned(id, { signResponseToo: name === 'XSW1' || name === 'XSW2' })), ['saml_signature_invalid'])
    })
  }

  it('the unwrapped attacker document is accepted, so the refusals above are the wrapping', async () => {
    const { client, id } = await started()
    const res = await postAcs(iam, conn.id, client, b64(attackerSigned(id)))
    expect(res.status, JSON.stringify(res.body)).toBe(201)
    expect(subOf(res.body.accessToken as string)).not.toBe(victimSub)
  })
})

describe('the signed content', () => {
  it('refuses a comment injected in the NameID, which canonicalisation would hide from the signature', async () => {
    const { client, id } = await started()
    const signed = signAssertion(responseXml({ inResponseTo: id, nameId: `victim@${domain}.attacker.test`, email: `attacker@${domain}` }), keys)
    const injected = signed.replace(`>victim@${domain}.attacker.test<`, `>victim@${domain}<!---->.attacker.test<`)
    expect(injected).not.toBe(signed)
    await refused(conn, client, injected, ['saml_response_invalid'])
  })

  it('refuses an unsigned assertion inside a signed response', async () => {
    const { client, id } = await started()
    await refused(conn, client, signResponse(responseXml({ inResponseTo: id, nameId: 'victim', email: `victim@${domain}` }), keys), ['saml_signature_invalid'])
  })

  it('refuses a document in which two elements share an ID', async () => {
    const { client, id } = await started()
    const xml = responseXml({ inResponseTo: id, nameId: 'attacker', email: `attacker@${domain}`, responseId: '_same', assertionId: '_same' })
    await refused(conn, client, signAssertion(xml, keys), ['saml_signature_invalid'])
  })

  it('refuses an assertion signed by another key than the connection certificate', async () => {
    const { client, id } = await started()
    await refused(conn, client, signAssertion(responseXml({ inResponseTo: id, nameId: 'victim', email: `victim@${domain}` }), makeIdpKeys('rogue')), ['saml_signature_invalid'])
  })

  it('refuses an assertion changed after it was signed', async () => {
    const { client, id } = await started()
    const tampered = attackerSigned(id).replace('>attacker<', '>victim<')
    await refused(conn, client, tampered, ['saml_signature_invalid'])
  })
})

describe('the conditions around the signature', () => {
  it('refuses an expired assertion', async () => {
    const { client, id } = await started()
    const xml = responseXml({ inResponseTo: id, nameId: 'attacker', email: `attacker@${domain}`, issuedMs: -20 * 60_000, notBeforeMs: -20 * 60_000, notOnOrAfterMs: -10 * 60_000 })
    await refused(conn, client, signAssertion(xml, keys), ['saml_expired'])
  })

  it('refuses an assertion issued longer ago than the maximum age, whatever its NotOnOrAfter', async () => {
    const { client, id } = await started()
    const xml = responseXml({ inResponseTo: id, nameId: 'attacker', email: `attacker@${domain}`, issuedMs: -60 * 60_000, notBeforeMs: -60 * 60_000, notOnOrAfterMs: 60 * 60_000 })
    await refused(conn, client, signAssertion(xml, keys), ['saml_expired'])
  })

  it('refuses an assertion for another audience', async () => {
    const { client, id } = await started()
    await refused(conn, client, signAssertion(responseXml({ inResponseTo: id, nameId: 'attacker', email: `attacker@${domain}`, audience: 'https://other.example/sp' }), keys), ['saml_audience_mismatch'])
  })

  it('refuses a response for another destination, or without one', async () => {
    for (const destination of ['https://other.example/acs', null]) {
      const { client, id } = await started()
      await refused(conn, client, signAssertion(responseXml({ inResponseTo: id, nameId: 'attacker', email: `attacker@${domain}`, destination }), keys), ['saml_destination_mismatch'])
    }
  })

  it('refuses an assertion confirmed for another recipient', async () => {
    const { client, id } = await started()
    await refused(conn, client, signAssertion(responseXml({ inResponseTo: id, nameId: 'attacker', email: `attacker@${domain}`, recipient: 'https://other.example/acs' }), keys), ['saml_destination_mismatch'])
  })

  it('refuses a response meant for another connection of the same provider', async () => {
    const { client, id } = await started()
    await refused(conn, client, signAssertion(responseXml({ inResponseTo: id, nameId: 'attacker', email: `attacker@${domain}`, target: open }), keys), ['saml_destination_mismatch'])
  })
})

describe('single use and solicitation', () => {
  it('refuses a replayed response', async () => {
    const { client, id } = await started()
    const signed = b64(attackerSigned(id))
    expect((await postAcs(iam, conn.id, client, signed)).status).toBe(201)
    const again = await postAcs(iam, conn.id, client, signed)
    expect(again.status).toBe(400)
    expect(['saml_request_unknown', 'saml_replayed']).toContain(again.body.code)
    expect(again.session).toBeUndefined()
  })

  it('refuses a response to a request never sent, and an unsolicited one where not allowed', async () => {
    const client = await device(iam)
    await refused(conn, client, attackerSigned(samlId()), ['saml_request_unknown'])
    const unsolicited = signAssertion(responseXml({ inResponseTo: null, nameId: 'attacker', email: `attacker@${domain}` }), keys)
    await refused(conn, client, unsolicited, ['saml_request_unknown'])
  })

  it('takes an unsolicited response once where allowed, and refuses its replay by assertion ID', async () => {
    const client = await device(iam)
    const xml = b64(signAssertion(responseXml({ inResponseTo: null, nameId: 'someone', email: `someone@elsewhere-${Date.now().toString(36)}.test`, target: open }), keys))
    const first = await postAcs(iam, open.id, client, xml)
    expect(first.status, JSON.stringify(first.body)).toBe(201)
    const replay = await postAcs(iam, open.id, client, xml)
    expect(replay.status).toBe(400)
    expect(replay.body.code).toBe('saml_replayed')
  })
})

describe('parsing', () => {
  it('refuses entity expansion (billion laughs) before parsing, and stays responsive', async () => {
    const { client, id } = await started()
    const entities = ['<!ENTITY lol0 "lol">', ...Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i};`.repeat(10)}">`)].join('')
    const signed = attackerSigned(id)
    const bomb = `<?xml version="1.0"?><!DOCTYPE samlp:Response [${entities}]>${signed.replace('>attacker<', '>&lol9;<')}`
    await refused(conn, client, bomb, ['saml_response_invalid'])
    expect((await fetch(`${iam.url}/health`)).status).toBe(200)
  })

  it('refuses a body that is not base64 XML with a 400', async () => {
    const client = await device(iam)
    for (const junk of ['%%%not-base64%%%', b64('not xml at all'), b64('<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol"/>')]) {
      const res = await postAcs(iam, conn.id, client, junk)
      expect(res.status, junk).toBe(400)
      expect(['saml_response_invalid', 'saml_signature_invalid', 'saml_destination_mismatch']).toContain(res.body.code)
    }
  })

  it('continues only at a path of this site, whatever the RelayState says', async () => {
    for (const relay of ['https://evil.example/x', '//evil.example/x', '/\\evil.example', 'javascript:alert(1)']) {
      const { client, id } = await started()
      const res = await postAcs(iam, conn.id, client, b64(attackerSigned(id)), relay)
      expect(res.status, relay).toBe(201)
      expect(res.body.returnTo, relay).toBe('/')
    }
  })
})
