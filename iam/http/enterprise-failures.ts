/**
 * The answers of the enterprise features' failures (features/enterprise): domains, the SAML
 * connection and the SAML sign-in, each code with its status (contract/enterprise.ts).
 */
import { authFail } from './auth'
import { ORG_FAILURES } from './org-failures'

export const DOMAIN_FAILURES = {
  ...ORG_FAILURES,
  domain_invalid: () => authFail(400, 'domain_invalid', 'Not a domain name', { fields: { domain: 'Not a domain name' } }),
  domain_public_suffix: () => authFail(400, 'domain_public_suffix', 'A public suffix alone cannot be claimed', { fields: { domain: 'Name your own domain, not a public suffix such as com or co.uk' } }),
  domain_exists: () => authFail(409, 'domain_exists', 'The organization claims that domain already'),
  domain_limit: () => authFail(409, 'domain_limit', 'The organization has as many domains as it may'),
  domain_taken: () => authFail(409, 'domain_taken', 'Another organization verified that domain'),
  domain_not_found: () => authFail(404, 'domain_not_found', 'No such domain in the organization'),
  domain_record_missing: () => authFail(409, 'domain_record_missing', 'No TXT record with the verification value was found: publish it, wait for DNS to update, then try again'),
  dns_unavailable: () => authFail(503, 'dns_unavailable', 'DNS could not be asked: try again later'),
} as const

export const CONNECTION_FAILURES = {
  ...ORG_FAILURES,
  saml_metadata_invalid: () =>
    authFail(400, 'saml_metadata_invalid', 'The identity provider metadata could not be read', {
      fields: { idpMetadataXml: 'Give the metadata XML of the identity provider (without a DOCTYPE), or its entity id, SSO URL and signing certificate' },
    }),
  saml_certificate_invalid: () => authFail(400, 'saml_certificate_invalid', 'Not an X.509 certificate', { fields: { idpCertificate: 'Paste the signing certificate (PEM or base64)' } }),
  role_not_found: () => authFail(400, 'role_not_found', 'No such role in the organization'),
} as const

/** The SAML sign-in's failures (features/enterprise/saml-response.ts, saml-login.ts). */
export const SAML_FAILURES = {
  saml_response_invalid: () => authFail(400, 'saml_response_invalid', 'The SAML response could not be read'),
  saml_signature_invalid: () => authFail(400, 'saml_signature_invalid', 'The SAML assertion is not signed by the identity provider of this connection'),
  saml_request_unknown: () => authFail(400, 'saml_request_unknown', 'The SAML response answers no sign-in started here'),
  saml_replayed: () => authFail(400, 'saml_replayed', 'The SAML assertion was used before'),
  saml_expired: () => authFail(400, 'saml_expired', 'The SAML assertion is outside its validity window'),
  saml_audience_mismatch: () => authFail(400, 'saml_audience_mismatch', 'The SAML assertion is meant for another service provider'),
  saml_destination_mismatch: () => authFail(400, 'saml_destination_mismatch', 'The SAML response was sent to another address'),
  saml_profile_invalid: () => authFail(400, 'saml_profile_invalid', 'The SAML assertion carries no usable NameID or email address'),
  email_taken: () => authFail(409, 'email_taken', 'An account of that address exists and cannot be linked to this sign-in'),
  banned: () => authFail(403, 'account_banned', 'Account suspended', { banned: true }),
  access_removed: () => authFail(403, 'sso_access_removed', 'Your access to this organization was turned off by its administrators'),
} as const

export const NO_CONNECTION = () => authFail(404, 'sso_connection_not_found', 'No such connection, or it is not enabled')
