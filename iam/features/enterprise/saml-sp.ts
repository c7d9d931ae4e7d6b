/**
 * The service provider side of one connection, on node-saml: the SAML instance with the rules
 * this platform holds every connection to, the AuthnRequest of an SP-initiated sign-in, and the
 * SP metadata the identity provider reads.
 *
 * The rules (docs/enterprise.md, "what is refused"): the assertion itself must be signed by one of
 * the connection's certificates (`wantAssertionsSigned`; a signed response around an unsigned
 * assertion is refused, SAML 2.0 profiles section 4.1.3.5 asks the assertion to be signed for the
 * POST binding), the response may be signed or not (Okta and Entra ID sign the assertion by
 * default); the audience is our entity id; NotBefore / NotOnOrAfter with a bounded clock skew and
 * a maximum age after IssueInstant; InResponseTo must name a request we sent unless the connection
 * accepts unsolicited responses.
 */
import { SAML, ValidateInResponseTo } from '@node-saml/node-saml'
import type { IamContext } from '../../context'
import { storeCacheProvider } from './saml-request-cache'
import { spUrls, type SamlConnection } from './saml-connections'

export function samlFor(ctx: Pick<IamContext, 'config' | 'store'>, connection: SamlConnection): SAML {
  const settings = ctx.config.enterprise.saml
  const urls = spUrls(ctx.config.enterprise.gatewayOrigin, connection.publicId)
  return new SAML({
    issuer: urls.entityId,
    callbackUrl: urls.acsUrl,
    entryPoint: connection.idpSsoUrl,
    idpCert: connection.idpCerts,
    audience: urls.entityId,
    wantAssertionsSigned: true,
    wantAuthnResponseSigned: false,
    acceptedClockSkewMs: settings.clockSkewMs,
    maxAssertionAgeMs: settings.maxAssertionAgeMs,
    validateInResponseTo: connection.allowIdpInitiated ? ValidateInResponseTo.ifPresent : ValidateInResponseTo.always,
    requestIdExpirationPeriodMs: settings.requestTtlMs,
    cacheProvider: storeCacheProvider(ctx.store, connection.publicId, settings.requestTtlMs),
    // no NameID format asked: the provider sends the one its administrator chose (docs/enterprise.md)
    identifierFormat: null,
    // no authentication context asked: a provider signing people in without a password (passkeys,
    // MFA apps) would refuse a request for PasswordProtectedTransport
    disableRequestedAuthnContext: true,
    signatureAlgorithm: 'sha256',
  })
}

/** The identity provider URL carrying a new AuthnRequest (HTTP-Redirect binding); its ID is saved for the response. */
export function authorizeUrl(ctx: Pick<IamContext, 'config' | 'store'>, connection: SamlConnection, relayState: string): Promise<string> {
  return samlFor(ctx, connection).getAuthorizeUrlAsync(relayState, undefined, {})
}

/** The SP metadata of the connection (no signing key of ours: requests go unsigned over HTTP-Redirect). */
export function spMetadata(ctx: Pick<IamContext, 'config' | 'store'>, connection: SamlConnection): string {
  return samlFor(ctx, connection).generateServiceProviderMetadata(null, null)
}
