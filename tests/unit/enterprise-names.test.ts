/**
 * The pure rules of enterprise sign-in (iam/features/enterprise): which domain names can be
 * claimed and how they are normalised, where a sign-in may continue (RelayState), how identity
 * provider metadata is read (never with a DTD), and which role and address an assertion gives.
 */
import { describe, expect, it } from 'vitest'
import { emailDomain, normalizeDomain } from '../../iam/features/enterprise/domain-name'
import { certificatePem, parseIdpMetadata, parseXmlStrict } from '../../iam/features/enterprise/idp-metadata'
import { safeReturnTo } from '../../iam/features/enterprise/return-to'
import { assertionEmail, roleFor } from '../../iam/features/enterprise/saml-login'
import { makeIdpKeys } from '../helpers/saml-idp'

describe('claimed domain names', () => {
  it('normalises case, a trailing dot and internationalised names to IDNA ASCII', () => {
    expect(normalizeDomain(' Example.COM. ')).toEqual({ ok: true, domain: 'example.com' })
    expect(normalizeDomain('münchen.de')).toEqual({ ok: true, domain: 'xn--mnchen-3ya.de' })
  })

  it('refuses a public suffix alone, an address, a URL and a wildcard', () => {
    for (const name of ['com', 'co.uk', 'github.io']) expect(normalizeDomain(name), name).toEqual({ ok: false, code: 'domain_public_suffix' })
    for (const name of ['192.0.2.1', 'https://example.com', 'a@example.com', '*.example.com', 'exa mple.com', '-bad.example', '']) {
      expect(normalizeDomain(name), name).toEqual({ ok: false, code: 'domain_invalid' })
    }
  })

  it('reads the domain of an address as a claimed one is written', () => {
    expect(emailDomain('Dana@Sub.Example.COM')).toBe('sub.example.com')
    expect(emailDomain('no-at-sign')).toBeNull()
  })
})

describe('where a sign-in continues', () => {
  it('keeps a path of this site and sends anything else to the start page', () => {
    expect(safeReturnTo('/orgs/1?tab=members')).toBe('/orgs/1?tab=members')
    for (const value of ['https://evil.example', '//evil.example', '/\\evil.example', 'javascript:alert(1)', '', undefined, `/${'a'.repeat(600)}`]) {
      expect(safeReturnTo(value), String(value)).toBe('/')
    }
  })
})

describe('identity provider metadata', () => {
  const keys = makeIdpKeys('unit-idp')
  const metadata = (sso: string) =>
    `<EntityDescriptor xmlns="urn:oasis:names:tc:SAML:2.0:metadata" entityID="https://idp.test/e"><IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol"><KeyDescriptor use="signing"><KeyInfo xmlns="http://www.w3.org/2000/09/xmldsig#"><X509Data><X509Certificate>${keys.certBody}</X509Certificate></X509Data></KeyInfo></KeyDescriptor>${sso}</IDPSSODescriptor></EntityDescriptor>`

  it('takes the entity id, the redirect binding location before the post one, and the signing certificate', () => {
    const parsed = parseIdpMetadata(
      metadata('<SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="https://idp.test/post"/><SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="https://idp.test/redirect"/>'),
    )
    expect(parsed).toEqual({ entityId: 'https://idp.test/e', ssoUrl: 'https://idp.test/redirect', certificates: [certificatePem(keys.certBody)] })
  })

  it('refuses a document with a DTD, malformed XML and metadata without a sign-in location', () => {
    expect(parseXmlStrict('<!DOCTYPE x [<!ENTITY a "b">]><x>&a;</x>')).toBeNull()
    expect(parseXmlStrict('<x><y></x>')).toBeNull()
    expect(parseIdpMetadata(metadata(''))).toBeNull()
  })

  it('accepts a certificate as PEM or bare base64 and nothing else', () => {
    expect(certificatePem(keys.cert)).toBe(certificatePem(keys.certBody))
    expect(certificatePem('bm90IGEgY2VydGlmaWNhdGU=')).toBeNull()
    expect(certificatePem('<script>')).toBeNull()
  })
})

describe('what an assertion gives', () => {
  const assertion = (attributes: Record<string, string[]>, nameIdFormat: string | null = null) => ({ nameId: 'n-1', nameIdFormat, attributes, inResponseTo: null })

  it('reads the mapped address, else the usual attributes, else an email-format NameID', () => {
    expect(assertionEmail({ attributeMapping: { email: 'mailbox' } }, assertion({ mailbox: ['A@Example.test'], email: ['other@example.test'] }))).toBe('A@example.test')
    expect(assertionEmail({ attributeMapping: {} }, assertion({ 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress': ['entra@example.test'] }))).toBe('entra@example.test')
    expect(assertionEmail({ attributeMapping: {} }, { ...assertion({}, 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress'), nameId: 'nameid@example.test' })).toBe('nameid@example.test')
    expect(assertionEmail({ attributeMapping: {} }, assertion({}))).toBeNull()
  })

  it('gives the role of a mapped group, admin before any other, else the default', () => {
    const connection = { defaultRole: 'member', attributeMapping: { groups: 'groups', groupRoles: { Eng: 'role-eng', Admins: 'admin' } } }
    expect(roleFor(connection, assertion({ groups: ['Eng', 'Admins'] }))).toEqual({ role: 'admin', mapped: true })
    expect(roleFor(connection, assertion({ groups: ['Eng'] }))).toEqual({ role: 'role-eng', mapped: true })
    expect(roleFor(connection, assertion({ groups: ['Sales'] }))).toEqual({ role: 'member', mapped: false })
  })
})
