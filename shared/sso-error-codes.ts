/**
 * The IAM's failure codes a company (SAML) sign-in can end with that the error page words
 * (pages/sso/error.vue), each with the group of words it shows: what the person can do about it.
 * The gateway passes on only these (server/utils/sso/saml-flow.ts); any other code reaches the page
 * as `sso_failed`, the generic words. One list, so a code the page words is never dropped on the way.
 */
export const SSO_ERROR_GROUPS = {
  sso_connection_not_found: 'notFound',
  saml_response_invalid: 'rejected',
  saml_signature_invalid: 'rejected',
  saml_audience_mismatch: 'rejected',
  saml_destination_mismatch: 'rejected',
  saml_request_unknown: 'stale',
  saml_replayed: 'stale',
  saml_expired: 'stale',
  saml_profile_invalid: 'profile',
  email_taken: 'emailTaken',
  account_banned: 'suspended',
  device_banned: 'suspended',
  sso_access_removed: 'accessRemoved',
  rate_limited: 'rateLimited',
  sso_unavailable: 'unavailable',
} as const satisfies Record<string, string>

export type SsoErrorCode = keyof typeof SSO_ERROR_GROUPS
export type SsoErrorGroup = (typeof SSO_ERROR_GROUPS)[SsoErrorCode]

export const isSsoErrorCode = (code: unknown): code is SsoErrorCode => typeof code === 'string' && Object.hasOwn(SSO_ERROR_GROUPS, code)
