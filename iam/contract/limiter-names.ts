/**
 * The names of the IAM's rate limiters: the route table lists, per route, the names it
 * consumes, and the limiter registry (iam/features/rate-limits/registry.ts) defines each one's key
 * shape, configuration and permanent-block rule. Names only here: the contract folder imports no
 * feature code (the gateway imports it too).
 */
export const LIMITER_NAMES = [
  // the API token limiters (rate_limiters.apiTokensLimiters, docs/configuration.md)
  'consumptionRateLimiter',
  'generalUnionLimiter',
  'newTokenCreationLimiter',
  'revokeTokensLimiter',
  'getMetadataTokenLimiter',
  'rotationRateLimiter',
  'ipRestrictionUpdate',
  'privilegeUpdate',
  // revoke-all counts apart, with revokeTokensLimiter's numbers
  'revokeAllLimiter',
  // configuration rate_limiters.* (docs/configuration.md)
  'signup',
  'loginIp',
  'loginAccount',
  'loginAccountDelay',
  'oauth',
  'refresh',
  'links',
  'codes',
  'forgotPassword',
  // POST /auth/email-sign-in, per IP and per IP + address
  'emailSignIn',
  'emails',
  'check',
  'passkeyOptions',
  'resendVerification',
  // GET /auth/export, per user: each answer reads every table of the account
  'export',
  // PUT /auth/picture, per user: each upload writes up to profilePicture.maxBytes into the database
  'picture',
  // link mails per recipient address, from every client together (iam/features/mail/address-cap.ts)
  'mailbox',
  // device flow user code submissions, per IP and per provider session (iam/routes/oidc/[...path].ts)
  'deviceUserCode',
  // dynamic client registrations (POST /oidc/reg), per IP (iam/routes/oidc/[...path].ts)
  'oidcRegistration',
  // an organization's webhook changes and test events, per user: each resolves a URL or queues a delivery
  'organizationWebhooks',
] as const

export type LimiterName = (typeof LIMITER_NAMES)[number]

/**
 * Names no table entry lists, each with the reason: a limiter that no route consumes is dead unless
 * it is written down here.
 */
export const INTERNAL_LIMITERS: Readonly<Partial<Record<LimiterName, string>>> = {
  deviceUserCode: 'consumed by iam/routes/oidc/[...path].ts before POST /oidc/device reaches the provider; the provider\'s endpoints are not in the route table',
  oidcRegistration: 'consumed by iam/routes/oidc/[...path].ts before POST /oidc/reg reaches the provider; the provider\'s endpoints are not in the route table',
}
