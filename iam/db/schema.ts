/**
 * Table types for Kysely, matching migrations/. Row types via Selectable / Insertable / Updateable.
 */
import type { ColumnType, Generated, Insertable, Selectable } from 'kysely'

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>
type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>
type Json<T> = ColumnType<T, T | string | undefined, T | string>

export interface UsersTable {
  id: Generated<number>
  email: string
  name: string
  password_hash: string | null
  email_verified: Generated<boolean>
  terms_consent: Generated<boolean>
  roles: Json<string[]>
  banned_until: NullableTimestamp
  /** the administrator's reason for the ban, shown at sign-in; null when none was given or no ban (migration 0015) */
  ban_reason: string | null
  /** when an address of the account was first proven; null: never (migration 0008) */
  first_verified_at: NullableTimestamp
  /** the account's `sub` at the OpenID Provider (migration 0009); never the serial id */
  public_id: Generated<string>
  /** set while a confirmed deletion waits for its purge: the account is disabled until then (migration 0011) */
  deletion_due_at: NullableTimestamp
  /** the account's id in the system it was imported from, unique where set; null for every account made here (migration 0013) */
  external_id: string | null
  /** the language the owner chose (iam/contract/locales.ts); null: not chosen, mails follow the request (migration 0014) */
  locale: ColumnType<string | null, string | null | undefined, string | null>
  /** the IANA time zone the owner's browser last named at sign-up or sign-in (iam/contract/time-zones.ts); null: unknown, mails say UTC (migration 0024) */
  time_zone: ColumnType<string | null, string | null | undefined, string | null>
  /** true once the owner chose the zone (POST /auth/profile): a sign-in's browser zone no longer replaces it (migration 0026) */
  time_zone_chosen: ColumnType<boolean, boolean | undefined, boolean>
  created_at: Timestamp
  updated_at: Timestamp
}

export type PictureSource = 'none' | 'upload' | 'gravatar'

/** An account's uploaded picture, one per account, removed with it (migration 0027) */
/** The picture an account chose, when not none: its upload (user_pictures) or its Gravatar (migration 0027) */
export interface UserPictureSourcesTable {
  user_id: number
  source: Exclude<PictureSource, 'none'>
}

export interface UserPicturesTable {
  user_id: number
  /** image/png, image/jpeg or image/webp: the type its magic bytes show */
  content_type: string
  bytes: Uint8Array
  /** hex SHA-256 of the bytes: the ETag */
  sha256: string
  updated_at: Timestamp
}

export interface OauthIdentitiesTable {
  id: Generated<number>
  user_id: number
  provider: string
  provider_user_id: string
  email: string
  email_verified: Generated<boolean>
  profile: Json<Record<string, unknown>>
  created_at: Timestamp
  last_login_at: Timestamp
}

export interface VisitorsTable {
  id: Generated<number>
  canary_id: string
  visitor_id: string
  ip_address: string | null
  user_agent: string | null
  fingerprint: Json<Record<string, unknown> | null>
  score: Generated<number>
  banned_until: NullableTimestamp
  first_seen: Timestamp
  last_seen: Timestamp
}

export interface SessionFamiliesTable {
  id: string
  user_id: number
  visitor_id: number
  remember: Generated<boolean>
  ip_address: string | null
  fingerprint: Json<Record<string, unknown> | null>
  created_at: Timestamp
  last_seen: Timestamp
  last_mfa_at: NullableTimestamp
  revoked_at: NullableTimestamp
  revoked_reason: string | null
  /** a cached anomaly of this session may exist until then (the shared-storage lookup is skipped otherwise) */
  anomaly_until: NullableTimestamp
  /** expiry of the family's active refresh token, null when it has none (the live-session count reads it, not refresh_tokens) */
  refresh_expires_at: NullableTimestamp
  /** the last POST /auth/reauthenticate of the session (null: none since the sign-in) */
  reauthenticated_at: NullableTimestamp
  /** how the sign-in was made, RFC 8176 method references separated by spaces; null: unknown (migration 0009) */
  sign_in_amr: string | null
  /** the organization the session acts for (POST /orgs/active), null: none (migration 0010) */
  active_org_id: ColumnType<number | null, number | null | undefined, number | null>
  /** the public id of the platform administrator who opened this session on the account's behalf; null: an ordinary session (migration 0012) */
  impersonated_by: ColumnType<string | null, string | null | undefined, string | null>
  /** the hard end of an impersonated session: no refresh token of the family outlives it (migration 0012) */
  impersonation_ends_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>
}

export type RefreshTokenStatus = 'active' | 'rotated' | 'revoked'

export interface RefreshTokensTable {
  id: Generated<number>
  family_id: string
  token_hash: string
  status: ColumnType<RefreshTokenStatus, RefreshTokenStatus | undefined, RefreshTokenStatus>
  created_at: Timestamp
  expires_at: ColumnType<Date, Date | string, Date | string>
  used_at: NullableTimestamp
  replaced_by: number | null
}

export type Privilege = 'demo' | 'restricted' | 'protected' | 'full' | 'custom'

export interface ApiTokensTable {
  id: Generated<number>
  user_id: number
  name: string
  prefix: ColumnType<string, string | undefined, string>
  hashed_token: string
  public_identifier: string
  privilege_type: Privilege
  valid: ColumnType<0 | 1, 0 | 1 | undefined, 0 | 1>
  created_at: Timestamp
  expires_at: NullableTimestamp
  restricted_to_ip_address: Json<string[] | null>
  last_used: NullableTimestamp
  usage_count: Generated<number>
  rotated_to: number | null
  /** the token fails verification until then (its owner's ban); null when not suspended */
  suspended_until: NullableTimestamp
}

export interface MagicLinksTable {
  jti: string
  purpose: string
  subject: string
  user_id: number
  family_id: string | null
  visitor: string
  random_hash: string
  data: Json<Record<string, unknown>>
  previews: Generated<number>
  attempts: Generated<number>
  created_at: Timestamp
  expires_at: ColumnType<Date, Date | string, Date | string>
  consumed_at: NullableTimestamp
}

export interface MfaCodesTable {
  id: Generated<number>
  link_jti: string
  user_id: number
  family_id: string | null
  code_hmac: string
  attempts: Generated<number>
  created_at: Timestamp
  expires_at: ColumnType<Date, Date | string, Date | string>
  used_at: NullableTimestamp
}

export interface SigningKeysTable {
  kid: string
  alg: string
  private_jwk: Json<Record<string, unknown>>
  public_jwk: Json<Record<string, unknown>>
  created_at: Timestamp
  retired_at: NullableTimestamp
}

export interface SecurityEventsTable {
  id: Generated<number>
  type: string
  user_id: number | null
  visitor_id: number | null
  ip_address: string | null
  details: Json<Record<string, unknown>>
  created_at: Timestamp
}

export interface TotpFactorsTable {
  user_id: number
  /** `<keyId>.<iv>.<ciphertext+tag>` (base64url), AES-256-GCM under secrets.totpKeys */
  secret_sealed: string
  /** the last RFC 6238 time step accepted (-1: none); unix seconds / 30 fits an integer for millennia */
  last_step: Generated<number>
  created_at: Timestamp
  enabled_at: NullableTimestamp
}

export interface RecoveryCodesTable {
  id: Generated<number>
  user_id: number
  code_hash: string
  created_at: Timestamp
  used_at: NullableTimestamp
}

export interface SecondFactorChallengesTable {
  challenge_hash: string
  user_id: number
  /** visitors.id of the device the challenge was issued to */
  visitor_id: number
  remember: Generated<boolean>
  attempts: Generated<number>
  created_at: Timestamp
  expires_at: ColumnType<Date, Date | string, Date | string>
  used_at: NullableTimestamp
  /** how the first step was made (RFC 8176): 'pwd', 'email', 'email otp'; null = 'pwd' (before migration 0018) */
  first_factor: ColumnType<string | null, string | null | undefined, string | null>
}

export interface PasskeysTable {
  id: Generated<number>
  user_id: number
  /** the authenticator's credential id, base64url */
  credential_id: string
  /** COSE public key */
  public_key: Uint8Array
  /** the authenticator's signature counter (WebAuthn 6.1.1); int8 read as a number (database.ts) */
  sign_count: Generated<number>
  transports: Json<string[]>
  backup_eligible: boolean
  backed_up: boolean
  aaguid: string
  /** the WebAuthn user.id given to the authenticator (random, not the account id), base64url */
  user_handle: string
  name: string
  created_at: Timestamp
  last_used_at: NullableTimestamp
}

export interface PasskeyChallengesTable {
  challenge_hash: string
  purpose: 'register' | 'login'
  /** the account a registration challenge was issued to; null for sign-in */
  user_id: number | null
  visitor_id: number
  /** registration: the WebAuthn user.id the options named */
  user_handle: string | null
  created_at: Timestamp
  expires_at: ColumnType<Date, Date | string, Date | string>
}

/** A sign-up with a passkey in progress (migration 0022, features/users/passkey-signup.ts). */
export interface PasskeySignupsTable {
  /** the normalized address the code was mailed to */
  email: string
  name: string | null
  /** HMAC-SHA256 of the mailed code; null once the code was used */
  code_hmac: string | null
  code_expires_at: ColumnType<Date, Date | string, Date | string>
  code_attempts: Generated<number>
  /** SHA-256 of the ceremony id the options step answered */
  ceremony_hash: string | null
  /** SHA-256 of the creation options' challenge */
  challenge_hash: string | null
  /** the WebAuthn user.id the options named (random, base64url) */
  user_handle: string | null
  /** the device that asked for the options: the only one that may finish */
  visitor_id: number | null
  ceremony_expires_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>
  created_at: Timestamp
}

/** Refused bot checks counted per hour and reason (migration 0024, features/bot-challenge/failure-tally.ts). */
export interface BotCheckFailuresTable {
  /** the start of the hour (UTC) */
  hour: ColumnType<Date, Date | string, Date | string>
  reason: 'missing' | 'invalid' | 'expired' | 'replayed'
  /** bigint: the driver may hand it back as a string */
  failures: ColumnType<string | number | bigint, number, number>
}

/** One artefact of the OpenID Provider (features/oidc/adapter.ts). */
export interface OidcPayloadsTable {
  model: string
  id: string
  payload: Json<Record<string, unknown>>
  grant_id: string | null
  user_code: string | null
  uid: string | null
  account_id: string | null
  expires_at: NullableTimestamp
  consumed_at: NullableTimestamp
}

/** A relying party of the OpenID Provider (features/oidc/clients.ts). */
/** Clients known by their metadata document, as first and last seen (migration 0022). */
export interface OidcDocumentClientsTable {
  client_id: string
  host: string
  name: string | null
  first_seen_at: Timestamp
  last_seen_at: Timestamp
}

/** Metadata-document hosts an administrator blocked (migration 0022). */
export interface OidcBlockedHostsTable {
  host: string
  blocked_by: number | null
  created_at: Timestamp
}

export interface OidcClientsTable {
  client_id: string
  metadata: Json<Record<string, unknown>>
  /** lib/aead.ts sealed client_secret; null for public clients */
  secret_sealed: string | null
  first_party: Generated<boolean>
  created_at: Timestamp
  updated_at: Timestamp
}

export interface OidcSigningKeysTable {
  kid: string
  private_jwk: Json<Record<string, unknown>>
  created_at: Timestamp
}

/** An organization (features/organizations, migration 0010). */
export interface OrganizationsTable {
  id: Generated<number>
  /** what routes and tokens name it by; never the serial id */
  public_id: Generated<string>
  slug: string
  name: string
  created_at: Generated<Date>
}

/** A custom role of an organization: a name and its permission strings `resource:action`. */
export interface OrganizationRolesTable {
  /** a v4 UUID; memberships.role holds it as text */
  id: Generated<string>
  org_id: number
  name: string
  permissions: ColumnType<string[], string[] | undefined, string[]>
  created_at: Generated<Date>
}

/** role: 'owner' | 'admin' | 'member', or a custom role's id as text */
export interface MembershipsTable {
  org_id: number
  user_id: number
  role: string
  created_at: Generated<Date>
  /** set while the organization's identity provider has the person deactivated (SCIM, migration 0020): no access through this row */
  deprovisioned_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>
}

export interface InvitationsTable {
  id: Generated<number>
  public_id: Generated<string>
  org_id: number
  /** normalised: trimmed, lower case */
  email: string
  role: string
  /** SHA-256 (hex) of the mailed token */
  token_hash: string
  invited_by: number | null
  created_at: Generated<Date>
  expires_at: Timestamp
  accepted_at: NullableTimestamp
  revoked_at: NullableTimestamp
}

/** An administrator's words for one mail in one language (migration 0014, features/mail/overrides-repo.ts). */
export interface MailTemplateOverridesTable {
  kind: string
  locale: string
  /** catalogue key of the mail -> plain text with the English text's placeholders */
  texts: Json<Record<string, string>>
  /** the administrator's public id */
  updated_by: string | null
  updated_at: Timestamp
}

/** A webhook receiver (migration 0016, features/webhooks) */
export interface WebhookEndpointsTable {
  id: Generated<number>
  /** `ep_` + random: the id the admin API names it by */
  public_id: string
  url: string
  description: Generated<string>
  /** catalogue types and wildcards (`user.*`, `*`) it subscribes to */
  event_types: Json<string[]>
  enabled: Generated<boolean>
  /** why it was switched off: `gone` (410), `failing`, `admin`; null while enabled */
  disabled_reason: string | null
  /** `<keyId>.<iv>.<tag>.<ciphertext>` of the `whsec_` secret, under secrets.totpKeys */
  secret_sealed: string
  previous_secret_sealed: string | null
  previous_secret_expires_at: NullableTimestamp
  consecutive_failures: Generated<number>
  failing_since: NullableTimestamp
  /** the public id of the organization it belongs to (its owners manage it, it hears only that organization's events); null: a platform endpoint (migration 0030) */
  organization_id: ColumnType<string | null, string | null | undefined, string | null>
  created_at: Timestamp
  updated_at: Timestamp
}

/** One event for one endpoint: the outbox row (migration 0016) */
export interface WebhookDeliveriesTable {
  id: Generated<number>
  msg_id: string
  endpoint_id: number
  event_type: string
  account_key: string | null
  payload: Json<Record<string, unknown>>
  status: Generated<'pending' | 'delivered' | 'dead'>
  attempts: Generated<number>
  next_attempt_at: Timestamp
  leased_until: NullableTimestamp
  last_status: number | null
  /** the delivering attempt's duration and answer excerpt, once delivered (migration 0029; null on rows delivered before it) */
  last_duration_ms: number | null
  last_excerpt: string | null
  delivered_at: NullableTimestamp
  created_at: Timestamp
}

/** One request made for a delivery (migration 0016) */
export interface WebhookAttemptsTable {
  id: Generated<number>
  delivery_id: number
  endpoint_id: number
  attempted_at: Timestamp
  status: number | null
  duration_ms: number
  error: string | null
  response_excerpt: string | null
}

/** A domain an organization claims; verified once its TXT record was seen (migration 0019, features/enterprise/domains.ts) */
export interface OrgDomainsTable {
  id: Generated<number>
  public_id: Generated<string>
  org_id: number
  /** IDNA ASCII, lower case, no trailing dot */
  domain: string
  /** the value to publish: `identity-platform-verification=<token>` */
  token: string
  verified_at: NullableTimestamp
  created_at: Generated<Date>
}

/** An organization's SAML 2.0 identity provider (migration 0019, features/enterprise/saml-connections.ts) */
export interface SamlConnectionsTable {
  id: Generated<number>
  public_id: Generated<string>
  org_id: number
  idp_entity_id: string
  idp_sso_url: string
  idp_certs: Json<string[]>
  default_role: Generated<string>
  attribute_mapping: Json<Record<string, unknown>>
  allow_idp_initiated: Generated<boolean>
  enabled: Generated<boolean>
  require_sso: Generated<boolean>
  created_at: Generated<Date>
  updated_at: Generated<Date>
}

/** An account a SAML connection signed in, by the NameID its provider gave (migration 0019) */
export interface SamlIdentitiesTable {
  id: Generated<number>
  connection_id: number
  name_id: string
  user_id: number
  email: string | null
  created_at: Generated<Date>
  last_login_at: Timestamp
}

/** An organization's SCIM connection: the hash of its bearer token (migration 0020, features/enterprise/scim-tokens.ts) */
export interface ScimConnectionsTable {
  org_id: number
  /** SHA-256 (hex) of the token */
  token_hash: string
  /** the token's last four characters, to tell tokens apart */
  token_hint: string
  created_by: number | null
  created_at: Timestamp
  rotated_at: NullableTimestamp
  last_used_at: NullableTimestamp
}

/** The SCIM view of one membership (migration 0020) */
export interface ScimUsersTable {
  scim_id: Generated<string>
  org_id: number
  user_id: number
  external_id: string | null
  given_name: string | null
  family_name: string | null
  formatted_name: string | null
  display_name: string | null
  version: Generated<number>
  created_at: Timestamp
  updated_at: Timestamp
}

/** A provider's externalId for a group (a role) of an organization (migration 0020) */
export interface ScimGroupsTable {
  org_id: number
  role: string
  external_id: string | null
}

/** One provisioning action (migration 0020) */
export interface ScimEventsTable {
  id: Generated<number>
  org_id: number
  at: Timestamp
  action: string
  target: string | null
  details: Json<Record<string, unknown>>
}

export interface Database {
  users: UsersTable
  user_pictures: UserPicturesTable
  user_picture_sources: UserPictureSourcesTable
  oauth_identities: OauthIdentitiesTable
  visitors: VisitorsTable
  session_families: SessionFamiliesTable
  refresh_tokens: RefreshTokensTable
  api_tokens: ApiTokensTable
  magic_links: MagicLinksTable
  mfa_codes: MfaCodesTable
  signing_keys: SigningKeysTable
  security_events: SecurityEventsTable
  totp_factors: TotpFactorsTable
  recovery_codes: RecoveryCodesTable
  second_factor_challenges: SecondFactorChallengesTable
  passkeys: PasskeysTable
  passkey_challenges: PasskeyChallengesTable
  passkey_signups: PasskeySignupsTable
  bot_check_failures: BotCheckFailuresTable
  oidc_payloads: OidcPayloadsTable
  oidc_clients: OidcClientsTable
  oidc_signing_keys: OidcSigningKeysTable
  oidc_document_clients: OidcDocumentClientsTable
  oidc_blocked_hosts: OidcBlockedHostsTable
  organizations: OrganizationsTable
  organization_roles: OrganizationRolesTable
  memberships: MembershipsTable
  invitations: InvitationsTable
  mail_template_overrides: MailTemplateOverridesTable
  webhook_endpoints: WebhookEndpointsTable
  webhook_deliveries: WebhookDeliveriesTable
  webhook_attempts: WebhookAttemptsTable
  org_domains: OrgDomainsTable
  saml_connections: SamlConnectionsTable
  saml_identities: SamlIdentitiesTable
  scim_connections: ScimConnectionsTable
  scim_users: ScimUsersTable
  scim_groups: ScimGroupsTable
  scim_events: ScimEventsTable
}

export type User = Selectable<UsersTable>
export type Visitor = Selectable<VisitorsTable>
export type SessionFamily = Selectable<SessionFamiliesTable>
export type RefreshToken = Selectable<RefreshTokensTable>
export type MagicLink = Selectable<MagicLinksTable>
export type MfaCode = Selectable<MfaCodesTable>
export type SigningKey = Selectable<SigningKeysTable>
export type NewSecurityEvent = Insertable<SecurityEventsTable>
