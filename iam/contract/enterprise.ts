/**
 * Enterprise sign-in (features/enterprise, docs/enterprise.md): the domains an organization claims
 * and proves by DNS, its SAML 2.0 connection, and the service provider's public endpoints the
 * gateway forwards under /sso/saml/{connectionId}/ with the `sso` purpose (metadata, the start of
 * a sign-in, the assertion consumer service). The organization routes answer as the others do
 * (404 alike for no such organization and no membership, 403 for a role without the permission).
 */
import { z } from 'zod'
import { defineRoutes, json, noBody } from './define'
import { secondFactorLoginBody } from './second-factor'
import { errorFail, failure, FULL_AUTH, JSON_BODY_FIELDS, LIMITED, okData, responses, tokensBody, XSS, type Responses } from './responses'

const uuid = (message: string) => z.string({ error: message }).regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, message)
const orgParams = z.object({ orgId: uuid('Not an organization id') })
const connectionParams = z.object({ connectionId: uuid('Not a connection id') })
/** a role a connection may hand out: never the owner role (docs/enterprise.md) */
const grantedRole = z.union([z.enum(['admin', 'member']), uuid('Not a role')], { error: 'Not a role' })

const domainView = z.object({
  id: z.string(),
  domain: z.string(),
  verified: z.boolean(),
  verifiedAt: z.string().nullable(),
  createdAt: z.string(),
  txt: z.object({ name: z.string(), apex: z.string(), value: z.string() }),
})

const attributeMapping = z.strictObject({
  email: z.string().min(1).max(256).optional(),
  name: z.string().min(1).max(256).optional(),
  groups: z.string().min(1).max(256).optional(),
  /** a group's name as the provider sends it -> the role its members get */
  groupRoles: z.record(z.string().min(1).max(256), grantedRole).refine((m) => Object.keys(m).length <= 50, 'At most 50 groups').optional(),
})

const connectionView = z.object({
  id: z.string(),
  idpEntityId: z.string(),
  idpSsoUrl: z.string(),
  idpCertificates: z.array(z.object({ subject: z.string(), notAfter: z.string(), fingerprint: z.string() })),
  defaultRole: z.string(),
  attributeMapping,
  allowIdpInitiated: z.boolean(),
  enabled: z.boolean(),
  requireSso: z.boolean(),
  /** what to enter at the identity provider */
  sp: z.object({ entityId: z.string(), acsUrl: z.string(), metadataUrl: z.string() }),
  updatedAt: z.string(),
})

const IN_ORG = {
  400: failure('Not an organization id, or the body failed validation', errorFail, 'validation_failed'),
  403: failure('The member\'s role does not allow it', errorFail, 'org_permission_denied'),
  404: failure('No such organization, or the user is no member of it (the same answer)', errorFail, 'org_not_found'),
} satisfies Responses

/** The SAML endpoints' failure when the connection is unknown or switched off. */
const NO_CONNECTION = { 404: failure('No such connection, or it is not enabled', errorFail, 'sso_connection_not_found') } satisfies Responses

/** An IdP's SAMLResponse: base64 of an XML document, bounded. */
const SAML_JSON_LIMIT_BYTES = 192 * 1024

export const ENTERPRISE_ROUTES = defineRoutes({
  orgDomains: {
    method: 'GET',
    path: '/orgs/:orgId/domains',
    summary: 'The domains an organization claims, with the TXT record each needs (members:manage)',
    auth: 'full',
    limiters: [],
    request: noBody,
    params: orgParams,
    responses: responses({ 200: { description: 'domains, oldest first', body: okData(z.object({ domains: z.array(domainView) })) } }, IN_ORG, FULL_AUTH),
  },
  orgDomainAdd: {
    method: 'POST',
    path: '/orgs/:orgId/domains',
    summary: 'Claim a domain (owners:manage): answers the TXT record to publish before verifying',
    auth: 'full',
    guards: ['not-impersonated'],
    limiters: [],
    request: json(),
    params: orgParams,
    body: z.strictObject({ domain: z.string({ error: 'The domain is required' }).min(1, 'The domain is required').max(260, 'Not a domain') }),
    responses: responses(
      {
        201: { description: 'claimed, not verified yet', body: okData(z.object({ domain: domainView })) },
        400: failure('Not a domain name, or a public suffix alone (`com`, `co.uk`)', errorFail, 'validation_failed', 'domain_invalid', 'domain_public_suffix'),
        409: failure('The organization claims it already, has as many domains as it may, or another organization verified it', errorFail, 'domain_exists', 'domain_limit', 'domain_taken'),
      },
      IN_ORG,
      JSON_BODY_FIELDS,
      XSS,
      FULL_AUTH,
    ),
  },
  orgDomainVerify: {
    method: 'POST',
    path: '/orgs/:orgId/domains/verify',
    summary: 'Look the TXT record up and mark the domain verified (owners:manage)',
    auth: 'full',
    guards: ['not-impersonated'],
    limiters: [],
    request: json(),
    params: orgParams,
    body: z.strictObject({ domainId: uuid('Not a domain id') }),
    responses: responses(
      {
        200: { description: 'verified', body: okData(z.object({ domain: domainView })) },
        404: failure('No such domain in the organization', errorFail, 'domain_not_found'),
        409: failure('No TXT record with the token yet, or another organization verified the domain', errorFail, 'domain_record_missing', 'domain_taken'),
        503: failure('DNS could not be asked: try again later', errorFail, 'dns_unavailable'),
      },
      IN_ORG,
      JSON_BODY_FIELDS,
      XSS,
      FULL_AUTH,
    ),
  },
  orgDomainRemove: {
    method: 'POST',
    path: '/orgs/:orgId/domains/remove',
    summary: 'Give a domain up (owners:manage): it routes no sign-in to the organization any more',
    auth: 'full',
    guards: ['not-impersonated'],
    limiters: [],
    request: json(),
    params: orgParams,
    body: z.strictObject({ domainId: uuid('Not a domain id') }),
    responses: responses(
      { 200: { description: 'removed', body: okData(z.object({ removed: z.literal(true) })) }, 404: failure('No such domain in the organization', errorFail, 'domain_not_found') },
      IN_ORG,
      JSON_BODY_FIELDS,
      XSS,
      FULL_AUTH,
    ),
  },
  orgSso: {
    method: 'GET',
    path: '/orgs/:orgId/sso',
    summary: 'The organization\'s SAML connection and what to enter at the identity provider (members:manage); null when none',
    auth: 'full',
    limiters: [],
    request: noBody,
    params: orgParams,
    responses: responses({ 200: { description: 'the connection, or null', body: okData(z.object({ connection: connectionView.nullable() })) } }, IN_ORG, FULL_AUTH),
  },
  orgSsoSet: {
    method: 'POST',
    path: '/orgs/:orgId/sso',
    summary: 'Create or replace the organization\'s SAML connection (owners:manage): the provider\'s metadata XML, or its entity id, SSO URL and signing certificate',
    auth: 'full',
    guards: ['not-impersonated'],
    limiters: [],
    // a PEM certificate and metadata XML carry newlines
    request: json(96 * 1024, { text: 'storable' }),
    params: orgParams,
    body: z.strictObject({
      idpMetadataXml: z.string().max(90_000, 'At most 90,000 characters').optional(),
      idpEntityId: z.string().min(1).max(1024).optional(),
      idpSsoUrl: z.url({ protocol: /^https?$/, error: 'Not an http(s) URL' }).max(2048).optional(),
      idpCertificate: z.string().min(1).max(20_000).optional(),
      defaultRole: grantedRole.default('member'),
      attributeMapping: attributeMapping.default({}),
      allowIdpInitiated: z.boolean().default(false),
      enabled: z.boolean().default(false),
      requireSso: z.boolean().default(false),
    }),
    responses: responses(
      {
        200: { description: 'saved', body: okData(z.object({ connection: connectionView })) },
        400: failure(
          'The metadata XML could not be read (or carries a DTD), the certificate is not one, or entity id / SSO URL / certificate are missing; or a mapped role does not exist',
          errorFail,
          'validation_failed',
          'saml_metadata_invalid',
          'saml_certificate_invalid',
          'role_not_found',
        ),
      },
      IN_ORG,
      JSON_BODY_FIELDS,
      FULL_AUTH,
    ),
  },
  samlMetadata: {
    method: 'GET',
    path: '/sso/saml/:connectionId/metadata',
    summary: 'The service provider metadata of a connection (XML), for the identity provider',
    auth: 'none',
    purposes: ['sso'],
    limiters: [],
    request: noBody,
    params: connectionParams,
    responses: responses({ 200: { description: 'SAML 2.0 metadata, application/samlmetadata+xml' }, 400: failure('Not a connection id', errorFail, 'validation_failed') }, NO_CONNECTION),
  },
  samlStart: {
    method: 'GET',
    path: '/sso/saml/:connectionId/start',
    summary: 'Start a SAML sign-in: the identity provider URL with a signed-for AuthnRequest (HTTP-Redirect binding); its ID waits for the response',
    auth: 'none',
    purposes: ['sso'],
    limiters: ['oauth'],
    request: noBody,
    params: connectionParams,
    query: z.object({ returnTo: z.string().max(1024).optional() }),
    responses: responses(
      { 200: { description: 'where to send the browser', body: okData(z.object({ redirectUrl: z.string() })) }, 400: failure('Not a connection id', errorFail, 'validation_failed') },
      NO_CONNECTION,
      LIMITED,
    ),
  },
  samlAcs: {
    method: 'POST',
    path: '/sso/saml/:connectionId/acs',
    summary: 'The assertion consumer service: the identity provider\'s SAMLResponse (as the gateway received it by form post) verified, then a session',
    auth: 'none',
    purposes: ['sso'],
    limiters: ['oauth'],
    request: json(SAML_JSON_LIMIT_BYTES, { text: 'storable' }),
    params: connectionParams,
    body: z.strictObject({ SAMLResponse: z.string().min(1).max(SAML_JSON_LIMIT_BYTES), RelayState: z.string().max(1024).optional() }),
    responses: responses(
      { 201: { description: 'Signed in: access token, session cookie set, `returnTo` the relative path to continue at', body: tokensBody.extend({ returnTo: z.string() }) } },
      {
        200: {
          description: 'An account with a second factor: a challenge for POST /auth/second-factor, no tokens; `returnTo` the relative path to continue at once it is answered',
          body: secondFactorLoginBody.extend({ returnTo: z.string() }),
        },
      },
      JSON_BODY_FIELDS,
      {
        400: failure(
          'The response could not be accepted: unreadable or with a DTD, signature missing or wrong (an unsigned assertion included), not answering a request of ours, replayed, expired, for another audience or destination, or without the address',
          errorFail,
          'validation_failed',
          'device_cookie_missing',
          'saml_response_invalid',
          'saml_signature_invalid',
          'saml_request_unknown',
          'saml_replayed',
          'saml_expired',
          'saml_audience_mismatch',
          'saml_destination_mismatch',
          'saml_profile_invalid',
        ),
        403: failure('Account suspended (`banned: true`), a banned device, or the person deactivated in the organization by its provisioning (SCIM)', errorFail, 'account_banned', 'device_banned', 'sso_access_removed'),
        409: failure('An account of that address exists and cannot be linked (docs/enterprise.md, linking)', errorFail, 'email_taken'),
      },
      NO_CONNECTION,
      LIMITED,
    ),
  },
  ssoDiscover: {
    method: 'POST',
    path: '/sso/discover',
    summary: 'Whether an address\'s domain routes to an organization\'s SAML sign-in (the answer depends on the domain alone, never on accounts)',
    auth: 'none',
    limiters: ['check'],
    request: json(),
    body: z.strictObject({ email: z.string({ error: 'The address is required' }).max(254, 'Not an email address') }),
    responses: responses(
      { 200: { description: 'the route for the domain', body: okData(z.object({ sso: z.boolean(), connectionId: z.string().nullable(), required: z.boolean() })) } },
      { 400: failure('Validation failed', errorFail, 'validation_failed') },
      JSON_BODY_FIELDS,
      XSS,
      LIMITED,
    ),
  },
})

export { domainView as orgDomainView, connectionView as samlConnectionView }
