/**
 * The IAM's failure codes: every failure answer carries one in `code` (snake_case, stable), beside
 * the English sentence in `error` (or `reason` on the management routes) that is for people and
 * logs. A program decides on `code` alone; the sentence may be reworded or translated at any time.
 *
 * A code names what happened, not where: `rate_limited` is the same on every route. Each route
 * table entry declares, per status, the codes it may answer (`codes` in define.ts); the OpenAPI
 * document lists them, and the test build refuses an answer whose code its route does not declare
 * (iam/test-build/plugins/declared-codes.ts). docs/errors.md is the reference for clients.
 *
 * A code is never renamed or reused for another meaning; a new meaning gets a new code.
 */
import { z } from 'zod'

export const ERROR_CODES = {
  // the platform, around every route
  not_found: 'No route answers this method and path, or the resource it names is not served here',
  service_unavailable: 'A dependency (database, shared store) cannot be reached: try again after Retry-After',
  internal_error: 'An unexpected failure on the server; the request id in the body or X-Request-Id names it in the logs',
  bad_request: 'The request cannot be taken as sent (the management and token routes answer `Bad Request`)',
  hmac_invalid: "The gateway's signature is missing, malformed, stale, replayed or wrong",
  purpose_not_accepted: 'The signature names a purpose this route does not accept',
  forbidden: 'The caller may not read this (an address or token outside the allowed ones)',
  // how the request is taken (middleware/30.request-rules.ts)
  content_type_not_json: 'A JSON route got another Content-Type',
  content_encoding_unsupported: 'The body is compressed (a Content-Encoding other than identity)',
  empty_body: 'A JSON route got no body',
  malformed_json: 'The body is not valid UTF-8 JSON',
  body_not_object: 'The JSON body is not an object',
  payload_too_large: 'The body is larger than the route takes',
  cookie_only: 'The route takes the session cookie alone: no body, query string or Content-Type',
  validation_failed: 'The input failed its checks; `fields` names each field at fault with its message',
  // authentication and the session
  access_token_missing: 'No Bearer access token',
  access_token_expired: 'The access token has expired: refresh the session',
  access_token_invalid: 'The access token does not verify',
  session_missing: 'No session cookie',
  relogin_required: 'The session can no longer be used: sign in again (`reason` may say why)',
  session_revoked: 'The session was ended (signed out, password or email changed, ...): sign in again; `revokedFor` says why',
  session_expired: 'The session has expired: sign in again',
  refresh_token_reused: 'A refresh token was used twice, as if it had been copied: the session is ended, sign in again',
  mfa_required: 'An unusual sign-in waits for the code mailed to the account (202): enter it, or open the link',
  mail_failed: 'A mail the request needed could not be sent: try again later',
  device_banned: 'This device is banned',
  device_cookie_missing: 'The canary_id device cookie is required (GET /check sets it)',
  xss_rejected: 'Markup in free text: refused, and the device is banned',
  reauthentication_required: 'Prove the sign-in again (POST /auth/reauthenticate), then repeat the request',
  not_admin: 'Platform administrators only',
  admin_bootstrap_code_invalid: 'Not the bootstrap code of a running IAM, or the IAM has none (an administrator exists, or it was turned off)',
  admin_exists: 'An administrator exists already: ask them to grant the role',
  email_unverified: 'Confirm the account address first',
  impersonated: 'Not allowed while a platform administrator is signed in on the account’s behalf',
  rate_limited: 'Too many requests: wait `retry` seconds (Retry-After), or for good when `permanent`',
  code_entry_locked: "Too many wrong codes for this account: code entry is locked for a while (`message`, Retry-After)",
  // signing in and the account
  invalid_credentials: 'The email and password, or the passkey, do not sign in (one answer for every cause)',
  account_banned: 'The account is suspended',
  deletion_pending: 'The account is scheduled for deletion: ask for the restore link with `restoreProof`',
  email_taken: 'The address belongs to another account',
  mail_text_unknown: 'A text key the mail does not have (`fields.texts` names it); GET the mail kind for its keys',
  mail_placeholder_unknown: "A `{name}` placeholder the mail's English text lacks (`fields.texts` names the key)",
  mail_text_markup: 'Markup in a mail text: texts are plain text, escaped when the mail is rendered',
  webhook_not_found: 'No webhook endpoint has that id',
  delivery_not_found: 'No delivery of that webhook endpoint has that id',
  webhook_url_refused: 'Deliveries may not go to that URL: https only, no credentials, and no name or address in a refused range (loopback, private networks, link-local ...)',
  client_host_not_blocked: 'The host is not blocked from the console (a host the configuration blocks answers `client_host_blocked_in_config`)',
  client_host_blocked_in_config: 'The host is blocked by the configuration (`oidc.clientIdMetadataDocuments.blockedHosts`): only a change there lifts it',
  locale_unsupported: 'The language is not one the service writes in (`fields.locale` lists them)',
  time_zone_unsupported: 'The time zone is not an IANA name the service knows (`fields.timeZone`): a name such as Europe/Berlin, or UTC',
  email_invalid: 'The address is not accepted (`fields` says why)',
  email_unchanged: 'The new address is the current one',
  email_change_not_pending: 'No email change is waiting for its confirmation link (none was asked for, or it was used, cancelled or expired)',
  email_already_verified: 'The address is already confirmed',
  address_changed: 'The link was sent to an address the account no longer has',
  oauth_profile_invalid: "The provider's profile lacks what a sign-in needs (`fields`)",
  passwords_mismatch: 'The password and its confirmation differ',
  password_rejected: 'The new password is too weak or known from a breach (`fields.password` says why)',
  breach_check_unavailable: 'The new password could not be checked against known breaches: try again later',
  wrong_password: 'The account password given as a proof is wrong',
  no_password: 'The account has no password (it signs in with a provider)',
  password_already_set: 'The account has a password already: change it with the current one',
  password_changed_meanwhile: 'The password was changed by another request meanwhile',
  password_required: 'The link was opened on another device: confirm with the account password, or choose a new one',
  account_not_found: 'The account or device this session or request names is gone',
  session_not_found: 'No live session of this account has that id',
  provider_not_linked: 'No account of that provider is linked',
  last_way_in: 'It is the last way to sign in: add another first',
  // codes, links and second factors
  code_invalid: 'The code is wrong or expired',
  code_attempts_exhausted: 'The code ran out of attempts: ask for a new one',
  no_code_waiting: 'No emailed code waits for this session',
  no_code_sent: 'No code was mailed to this session: ask for one first',
  password_expected: 'This account proves its sign-in with its password (`use: "password"`)',
  code_expected: 'This account proves its sign-in with a second-factor code (`use: "code"`)',
  bot_check_required: 'The route asks for a solved browser check (GET /auth/bot-challenge, `botProof` in the body): config botChallenge',
  bot_check_failed: 'The browser check solution is forged, expired or used already (`botCheck` says which): solve a new one',
  bot_check_unavailable: 'The browser check provider could not be asked (`botChallenge.provider: "turnstile"`): the request is refused, never let through; try again shortly',
  email_sign_in_disabled: 'Sign-in by emailed link or code (the method asked for) is not offered here (config `signIn`)',
  email_sign_in_other_device: 'The sign-in link was opened in another browser than the one that asked for it: open it there, or type the mailed code there',
  sign_in_expired: 'The second-factor step of this sign-in has ended: sign in again (`restart: true`)',
  flow_not_started: 'No confirmation of this session is pending for that reason: start it first',
  link_invalid: 'The link is not valid',
  link_mismatch: 'The link is for another purpose, account or device',
  link_expired: 'The link has expired',
  link_used: 'The link was used already',
  link_previews_exhausted: 'The link was opened too many times',
  totp_already_enabled: 'Two-step sign-in is on already',
  totp_not_enabled: 'Two-step sign-in is not on',
  totp_setup_not_started: 'No authenticator setup is pending: start it first',
  passkey_not_found: 'The account has no such passkey',
  passkey_already_registered: 'This passkey is registered already',
  passkey_unverified: "The authenticator's answer does not verify (challenge, origin or signature)",
  passkey_signup_ceremony_invalid: 'The sign-up ceremony is unknown, used, expired or another device\'s: ask for a new code',
  // account deletion
  last_owner: 'The account is the last owner of an organization: hand it on first (`organizations` names them on account deletion)',
  restore_proof_invalid: 'The restore proof is unknown, expired, used or from another device: sign in again',
  deletion_not_pending: 'The account is not scheduled for deletion',
  undo_expired: 'The time to undo the deletion has passed',
  // the gateway's token routes and API tokens
  audience_not_allowed: 'The IAM issues no token for that audience (jwt.api_access_tokens.audiences)',
  api_key_missing: 'No API token in x-api-key',
  api_key_invalid: 'The API token is unknown, revoked, expired, suspended or of another privilege',
  host_not_allowed: "The client address is outside the API token's allow-list",
  token_expired: 'The API token has expired',
  token_not_found: 'No valid API token of this account matches',
  token_identity_mismatch: 'The token details (public identifier) are not valid',
  token_revoked: 'The API token is revoked or expired, so it cannot be rotated',
  token_not_rotatable: 'The API token cannot be rotated right now',
  token_limit_reached: 'The account has as many valid API tokens as it may',
  // organizations
  org_not_found: 'No such organization, or the account is no member of it (the same answer)',
  org_permission_denied: "The member's role does not allow this",
  slug_taken: 'Another organization has that slug',
  owner_only_permission: 'Only owners hold that permission',
  role_name_taken: 'The organization has a role of that name',
  role_not_found: 'No such role in the organization',
  role_in_use: 'A member or a pending invitation holds the role',
  member_not_found: 'No such member',
  already_member: 'The address is a member already',
  invitation_not_found: 'No such (pending) invitation',
  invitation_used: 'The invitation was used, revoked, or has expired',
  invitation_other_address: 'The invitation was sent to another address',
  // enterprise sign-in: verified domains and SAML (features/enterprise, docs/enterprise.md)
  domain_invalid: 'Not a domain name that can be claimed',
  domain_public_suffix: 'A public suffix alone (`com`, `co.uk`) cannot be claimed',
  domain_exists: 'The organization claims that domain already',
  domain_limit: 'The organization has as many domains as it may',
  domain_taken: 'Another organization verified that domain',
  domain_not_found: 'No such domain in the organization',
  domain_record_missing: 'No TXT record with the verification token was found (yet): publish it, wait for DNS, try again',
  dns_unavailable: 'DNS could not be asked: try again later',
  sso_connection_not_found: 'No such SAML connection, or it is not enabled',
  saml_metadata_invalid: 'The identity provider metadata could not be read, carries a DTD, or lacks the entity id, SSO URL or signing certificate',
  saml_certificate_invalid: 'The signing certificate is not an X.509 certificate',
  saml_response_invalid: 'The SAML response could not be read (malformed, a DTD, no assertion, or the provider reported a failure)',
  saml_signature_invalid: 'The SAML assertion is not signed by the connection\'s identity provider (a missing or wrong signature, an unsigned assertion, a wrapped document)',
  saml_request_unknown: 'The SAML response answers no sign-in started here (unknown, used or expired InResponseTo, or unsolicited where not allowed)',
  saml_replayed: 'The SAML assertion was used before',
  saml_expired: 'The SAML assertion is outside its validity window',
  saml_audience_mismatch: 'The SAML assertion is meant for another service provider',
  saml_destination_mismatch: 'The SAML response was sent to another address than this connection\'s ACS URL',
  sso_access_removed: "The organization's provisioning (SCIM) turned this person's access off: sign-in through its connection is refused until it is turned on again",
  saml_profile_invalid: 'The SAML assertion carries no usable NameID or email address',
  // requiring SSO (features/enterprise/sso-required.ts, docs/enterprise.md)
  sso_required: "The address's domain is verified by an organization that requires its own sign-in: continue at `startUrl` (the connection `connectionId`); decided by the domain alone, never by the account",
  // SCIM provisioning (docs/scim.md)
  scim_token_exists: 'The organization has a SCIM token already: rotate it, or revoke it first',
  scim_token_not_found: 'The organization has no SCIM token',
  // platform administration
  user_not_found: 'No such account (or, to impersonate, a suspended one)',
  factor_not_found: 'The account has no such factor',
  own_account: 'Not on your own account',
  target_is_admin: 'Platform administrators cannot be impersonated',
  // the OpenID Provider's interactions
  interaction_not_found: 'No such sign-in request in this browser (expired, finished, or started in another browser)',
  interaction_wrong_step: 'The sign-in request is not at that step: reload the page',
  interaction_other_account: 'The sign-in request is for another account than the signed-in one',
  app_not_found: 'That app has no access to the account',
  picture_empty: 'The picture upload has no body',
  picture_too_large: 'The picture is larger than the configured cap (`limitBytes`, profilePicture.maxBytes)',
  picture_type_unsupported: 'The picture is not a PNG, JPEG or WebP image by its content (SVG, GIF and every other type are refused)',
  picture_type_mismatch: 'The declared Content-Type is not the type the picture content shows (`detected` names it)',
  picture_not_found: 'The account has no uploaded picture in use',
} as const satisfies Record<string, string>

/** A failure code of the IAM (contract/error-codes.ts). */
export type ErrorCode = keyof typeof ERROR_CODES

export const ERROR_CODE_LIST = Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]]

/**
 * The `code` member of a failure body: a component of the OpenAPI document of its own (zod's
 * `.meta({ id })`, as contract/responses.ts names the shared bodies), referenced by every body.
 */
export const errorCode = z.enum(ERROR_CODE_LIST).meta({ id: 'errorCode', description: 'A stable failure code (docs/errors.md); the document lists their meanings in `x-error-codes`' })

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERROR_CODES, value)
}
