/**
 * Reading an identity provider's SAML 2.0 metadata (SAML 2.0 Metadata, OASIS saml-metadata-2.0-os):
 * its entityID, the SingleSignOnService location of the HTTP-Redirect binding (else HTTP-POST), and
 * the signing certificates of its IDPSSODescriptor. Parsed safely: a document with a DOCTYPE is
 * refused before parsing (no DTD, so no entity expansion of any kind), and any parser warning or
 * error refuses it too. Certificates are checked to be X.509 (node's X509Certificate).
 */
import { X509Certificate, createHash } from 'node:crypto'
import { DOMParser } from '@xmldom/xmldom'

const MD = 'urn:oasis:names:tc:SAML:2.0:metadata'
const DSIG = 'http://www.w3.org/2000/09/xmldsig#'
const REDIRECT = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect'
const POST = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST'

export interface IdpMetadata {
  entityId: string
  ssoUrl: string
  certificates: string[]
}

/** An XML text that may carry a DTD (and so entity declarations) is never parsed (XXE, billion laughs). */
export const hasDoctype = (xml: string): boolean => /<!DOCTYPE|<!ENTITY/i.test(xml)

/** Parses `xml` strictly: null on a DTD, or on anything the parser warns about. */
export function parseXmlStrict(xml: string): Document | null {
  if (hasDoctype(xml)) return null
  let failed = false
  const fail = () => {
    failed = true
  }
  const doc = new DOMParser({ errorHandler: { warning: fail, error: fail, fatalError: fail } }).parseFromString(xml, 'text/xml')
  if (failed || !doc?.documentElement) return null
  return doc as unknown as Document
}

/** A certificate as PEM, from PEM or bare base64 DER; null when it is not an X.509 certificate. */
export function certificatePem(input: string): string | null {
  const body = input
    .replace(/-----BEGIN CERTIFICATE-----|-----END CERTIFICATE-----/g, '')
    .replace(/\s+/g, '')
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(body)) return null
  const pem = `-----BEGIN CERTIFICATE-----\n${body.match(/.{1,64}/g)!.join('\n')}\n-----END CERTIFICATE-----\n`
  try {
    new X509Certificate(pem)
    return pem
  } catch {
    return null
  }
}

/** What an owner sees of a certificate: who it names, until when, its SHA-256 fingerprint. */
export function describeCertificate(pem: string): { subject: string; notAfter: string; fingerprint: string } {
  const cert = new X509Certificate(pem)
  return { subject: cert.subject.replace(/\n/g, ', '), notAfter: new Date(cert.validTo).toISOString(), fingerprint: createHash('sha256').update(cert.raw).digest('hex') }
}

const elements = (node: Document | Element, ns: string, name: string): Element[] => Array.from(node.getElementsByTagNameNS(ns, name))

export function parseIdpMetadata(xml: string): IdpMetadata | null {
  const doc = parseXmlStrict(xml)
  if (!doc) return null
  const root = doc.documentElement
  const descriptor = root.localName === 'EntityDescriptor' && root.namespaceURI === MD ? root : null
  const entityId = descriptor?.getAttribute('entityID')?.trim()
  const idp = descriptor ? elements(descriptor, MD, 'IDPSSODescriptor')[0] : undefined
  if (!entityId || !idp) return null
  const services = elements(idp, MD, 'SingleSignOnService')
  const service = services.find((s) => s.getAttribute('Binding') === REDIRECT) ?? services.find((s) => s.getAttribute('Binding') === POST)
  const ssoUrl = service?.getAttribute('Location')?.trim()
  if (!ssoUrl || !/^https?:\/\//.test(ssoUrl)) return null
  const certificates = elements(idp, MD, 'KeyDescriptor')
    .filter((key) => (key.getAttribute('use') ?? 'signing') === 'signing')
    .flatMap((key) => elements(key, DSIG, 'X509Certificate'))
    .map((node) => certificatePem(node.textContent ?? ''))
  if (certificates.length === 0 || certificates.some((pem) => pem === null)) return null
  return { entityId, ssoUrl, certificates: [...new Set(certificates as string[])] }
}
