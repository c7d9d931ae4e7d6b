/**
 * The IAM calls the BFF may make (only allow-listed paths), as route ids of the IAM's
 * route table (iam/contract/routes.ts): method and path come from the table, and a `:param` segment
 * matches exactly what the entry's params schema accepts (the IAM's own check), so the two can no
 * longer disagree. Every browser action maps to one of these; anything else is a bug in a BFF route
 * and is refused before a signed request leaves the gateway, so a mistake can never turn the gateway
 * into a signing oracle for arbitrary IAM paths (operational config, OAuth profile login ...).
 */
import type { RouteContract } from '../../../iam/contract/define'
import { ROUTES, type RouteId } from '../../../iam/contract/routes'

/**
 * Which cookies of the browser an IAM call receives (never more than it needs). `_interaction`
 * (and its signature) names an OpenID sign-in request of this browser (iam/features/oidc).
 */
export type ForwardedCookie = 'canary_id' | 'session' | '_interaction' | '_interaction.sig'

export const BFF_IAM_ROUTES = [
  'check',
  'signup',
  'login',
  'logout',
  'refreshSession',
  'accessTokenMetadata',
  'secretData',
  'verifyMfaLink',
  'verifyMfa',
  'verifyMfaCode',
  'waitingMfa',
  'forgotPassword',
  // the proof-of-work check of sign-up, reset and email sign-in (config botChallenge)
  'botChallenge',
  // sign-in by emailed link or code (config signIn)
  'emailSignInMethods',
  'emailSignIn',
  'emailSignInLink',
  'emailSignInCode',
  'resetPasswordLink',
  'resetPassword',
  'verifyEmailLink',
  'verifyEmail',
  'verifyEmailWithPassword',
  'resendVerification',
  'undoEmailChangeLink',
  'undoEmailChange',
  'customMfa',
  'verifyCustomMfaLink',
  'verifyCustomMfa',
  'updateEmail',
  // the account page shows a change waiting for its confirmation link, may mail it again or cancel it
  'pendingEmailChange',
  'resendEmailChange',
  'cancelEmailChange',
  'listTokenMetadata',
  // machine clients verify API tokens through the gateway (the IAM stays behind HMAC)
  'publicVerify',
  'newToken',
  'revokeToken',
  'tokenMetadata',
  'rotateToken',
  'ipRestrictionUpdate',
  'privilegeUpdate',
  'revokeAllTokens',
  // account security
  'listSessions',
  'revokeSession',
  'updateProfile',
  // the account's picture (the overview's picture section, the header's account menu)
  'uploadPicture',
  'readPicture',
  'pictureSettings',
  'choosePicture',
  'revokeOtherSessions',
  'changePassword',
  // a first password for a provider account; unlinking a provider (the account page's linked accounts)
  'setPassword',
  'unlinkProvider',
  'listSecurityEvents',
  // the account page: which sign-in methods to offer (no password form without a password)
  'signInMethods',
  // the sign-in proven again before a change to how the account signs in
  'reauthenticate',
  // two-step sign-in (account page, login page's second step, second factor instead of the emailed code)
  'totpStatus',
  'totpSetup',
  'totpEnable',
  'totpDisable',
  'totpRecoveryCodes',
  'secondFactor',
  'verifyCustomMfaSecondFactor',
  'updateEmailSecondFactor',
  // passkeys (account page) and passwordless sign-in (login page)
  'passkeysList',
  'passkeyRegisterOptions',
  'passkeyRegisterVerify',
  'passkeyDelete',
  'passkeyRename',
  'passkeyLoginOptions',
  'passkeyLoginVerify',
  // sign-up with a passkey and no password (sign-up page)
  'passkeySignupStart',
  'passkeySignupOptions',
  'passkeySignupFinish',
  // the OpenID Provider's sign-in and consent page (/interaction/:uid)
  'oidcInteraction',
  'oidcInteractionLogin',
  'oidcInteractionConsent',
  'oidcInteractionAbort',
  // the session tokens' public keys, for the APIs behind the proxy (/.well-known/jwks.json)
  'jwks',
  // the API proxy's token for one API's audience (server/utils/upstream-token.ts)
  'apiAccessToken',
  // the account page's connected apps
  'oidcConnectedApps',
  'oidcRevokeApp',
  // self-service deletion: the account page's request, the mailed confirmation and undo links
  'deleteAccount',
  'deleteAccountLink',
  'confirmDeleteAccount',
  'undoDeleteAccountLink',
  'undoDeleteAccount',
  // the sign-in page's "Send the restore link" for an account scheduled for deletion
  'restoreLink',
  // the account page's "Download your data"
  'accountExport',
  // the admin console (/admin pages, server/api/admin/**): platform administrators only, the IAM's guards decide
  'adminUsers',
  'adminUser',
  'adminUserBan',
  'adminUserUnban',
  'adminUserSessionsRevoke',
  'adminUserFactorRemove',
  'adminUserVerifyEmail',
  'adminUserResetLink',
  'adminUserImpersonate',
  'adminOrgs',
  'adminOrg',
  // the sign-ups and refused bot checks per hour (/admin/signups)
  'adminSignupStats',
  // the console's mail texts per language (/admin/mails) and webhooks (/admin/webhooks)
  'adminMailTemplate',
  'adminMailTemplateSave',
  'adminMailTemplateDelete',
  'adminMailTemplatePreview',
  'adminWebhooks',
  'adminWebhookCreate',
  'adminWebhookUpdate',
  'adminWebhookDelete',
  'adminWebhookRotateSecret',
  'adminWebhookTest',
  'adminWebhookDeliveries',
  'adminWebhookReplayOne',
  'adminWebhookReplay',
  // the OpenID Provider's clients and blocked metadata-document hosts (/admin/clients)
  'adminOidcClients',
  'adminOidcHostBlock',
  'adminOidcHostUnblock',
  // /admin/bootstrap: the first administrator with the running IAM's one-time code (any signed-in account may try)
  'adminBootstrap',
  // the organization pages (/orgs, /orgs/:orgId, the invitation landing page) and the header's switcher
  'orgCreate',
  'orgList',
  'orgActive',
  'orgAcceptInvitation',
  'orgInvitationPreview',
  'orgGet',
  'orgMembers',
  'orgMemberRole',
  'orgMemberRemove',
  'orgLeave',
  'orgDelete',
  'orgInvite',
  'orgInvitations',
  'orgInvitationRevoke',
  'orgInvitationResend',
  'orgRoles',
  'orgRoleCreate',
  'orgRoleUpdate',
  'orgRoleDelete',
  // enterprise sign-in: an organization's domains and SAML connection (owners' settings), and the
  // login page's address-first step (does the domain route to a company sign-in?)
  'orgDomains',
  'orgDomainAdd',
  'orgDomainVerify',
  'orgDomainRemove',
  'orgSso',
  'orgSsoSet',
  'ssoDiscover',
  // an organization's SCIM connection (docs/scim.md): owners create, rotate, revoke, read the log
  'scimConnection',
  'scimTokenCreate',
  'scimTokenRotate',
  'scimTokenRevoke',
  'scimEvents',
  // an organization's own webhook endpoints (owners' settings): the console's webhook calls, under
  // the organization; reading one endpoint alone has no page that asks for it
  'orgWebhooks',
  'orgWebhookCreate',
  'orgWebhookUpdate',
  'orgWebhookDelete',
  'orgWebhookRotateSecret',
  'orgWebhookTest',
  'orgWebhookDeliveries',
  'orgWebhookReplayOne',
  'orgWebhookReplay',
] as const satisfies readonly RouteId[]

export type BffRouteId = (typeof BFF_IAM_ROUTES)[number]

function decodeSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment)
  } catch {
    return undefined
  }
}

/**
 * The path parameters of `path` under `route`'s pattern, decoded as the IAM's router decodes them,
 * or undefined when the path does not have the pattern's shape.
 */
export function matchRoutePath(route: Pick<RouteContract, 'path'>, path: string): Record<string, string> | undefined {
  const want = route.path.split('/')
  const got = path.split('/')
  if (want.length !== got.length) return undefined
  const params: Record<string, string> = {}
  for (const [i, segment] of want.entries()) {
    const value = got[i] ?? ''
    if (!segment.startsWith(':')) {
      if (segment !== value) return undefined
      continue
    }
    const decoded = value === '' ? undefined : decodeSegment(value)
    // A decoded slash would be a second segment to a proxy that decodes before routing.
    if (decoded === undefined || decoded.includes('/')) return undefined
    params[segment.slice(1)] = decoded
  }
  return params
}

/** The allow-listed route `method path` calls, when its parameters pass the entry's params schema. */
export function allowedIamRoute(method: string, path: string): BffRouteId | undefined {
  const upper = method.toUpperCase()
  return BFF_IAM_ROUTES.find((id) => {
    const route: RouteContract = ROUTES[id]
    if (route.method !== upper) return false
    const params = matchRoutePath(route, path)
    return params !== undefined && (route.params === undefined || route.params.safeParse(params).success)
  })
}

// The allow-listed routes without path parameters, as `METHOD path`, built once: the calls of
// every signed-in page (GET /secret/accesstoken/metadata, refresh) are answered by one lookup.
const STATIC_CALLS = new Set<string>(
  BFF_IAM_ROUTES.map((id): RouteContract => ROUTES[id])
    .filter((route) => !route.path.includes(':'))
    .map((route) => `${route.method} ${route.path}`),
)

/** true when the BFF may send `method path` to the IAM. */
export function isAllowedIamCall(method: string, path: string): boolean {
  return STATIC_CALLS.has(`${method.toUpperCase()} ${path}`) || allowedIamRoute(method, path) !== undefined
}
