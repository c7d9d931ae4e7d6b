/**
 * What a security event says to its owner, in words of the page's language (`activity.` keys of
 * i18n/locales). The IAM's event names are for programs
 * (`api_tokens_revoked_all`); a person reads what happened, using the event's `details` where they
 * change the story (a passkey is not an authenticator app, a revoke-all that found no token revoked
 * nothing). The table is typed over every recorded kind, so a new kind fails the typecheck until it
 * has words here.
 */
import type { SecurityEventType } from '../iam/contract/security-event-types'

type Details = Record<string, unknown>

/** The translate function of a page (vue-i18n's `t`); the third argument picks a counted message's plural form. */
type Translate = (key: string, named: Record<string, unknown>, plural: number) => string

/** The catalogue key shown for a kind this page does not know (an IAM newer than the page): never the raw name. */
export const UNKNOWN_SECURITY_EVENT = 'activity.unknown'

const count = (details: Details, key: string): number | null => {
  const value = details[key]
  return typeof value === 'number' && Number.isFinite(value) ? value : null
}
const text = (details: Details, key: string): string | null => {
  const value = details[key]
  return typeof value === 'string' && value.trim() ? value.trim() : null
}

/** The second factor named by what the person holds: a passkey, an authenticator app. */
function factorKey(details: Details): 'passkey' | 'totp' | 'other' {
  const method = text(details, 'method')
  return method === 'passkey' || method === 'totp' ? method : 'other'
}

function providerName(details: Details): string | null {
  const provider = text(details, 'provider')
  return provider ? provider.charAt(0).toUpperCase() + provider.slice(1) : null
}

/**
 * Each kind's words: a catalogue key under `activity.` and its named values. Counts are placeholders
 * of a sentence built so that no plural is needed ("Sessions signed out: 3"): Arabic has six plural
 * forms and Japanese one, and the catalogue keeps one message per key.
 */
type Words = [key: string, named?: Record<string, unknown>]

const LABELS: Record<SecurityEventType, (details: Details) => Words> = {
  login_succeeded: (d) => {
    const provider = providerName(d)
    if (text(d, 'method') === 'oauth') return provider ? ['activity.signedInWith', { provider }] : ['activity.signedInOther']
    if (text(d, 'method') === 'password') return ['activity.signedInPassword']
    return ['activity.signedIn']
  },
  login_failed: (d) => {
    // a code of the event's details (features/users/login-service.ts), not a sentence
    const cause = text(d, 'reason')
    if (cause === 'banned') return ['activity.loginRefusedBanned']
    if (cause === 'deletion_pending') return ['activity.loginRefusedDeletion']
    return ['activity.loginFailed']
  },
  passkey_sign_in: () => ['activity.passkeySignIn'],
  mfa_sent: () => ['activity.mfaSent'],
  mfa_verified: () => ['activity.mfaVerified'],
  mfa_failed: () => ['activity.mfaFailed'],
  custom_mfa_started: () => ['activity.customMfaStarted'],
  custom_mfa_verified: () => ['activity.customMfaVerified'],
  session_revoked: () => ['activity.sessionRevoked'],
  sessions_revoked_others: (d) => {
    const n = count(d, 'revokedSessions')
    if (n === null) return ['activity.othersSignedOut']
    return n === 0 ? ['activity.othersSignedOutNone'] : ['activity.othersSignedOutCount', { count: n }]
  },
  password_changed: () => ['activity.passwordChanged'],
  password_reset_requested: () => ['activity.passwordResetRequested'],
  password_reset: (d) => (text(d, 'by') === 'email_verification' ? ['activity.passwordSetOnVerify'] : ['activity.passwordReset']),
  email_changed: () => ['activity.emailChanged'],
  email_change_undone: () => ['activity.emailChangeUndone'],
  email_verified: () => ['activity.emailVerified'],
  second_factor_added: (d) => [`activity.factorAdded.${factorKey(d)}`],
  second_factor_removed: (d) => [`activity.factorRemoved.${factorKey(d)}`],
  second_factor_passed: (d) => (text(d, 'method') === 'recovery_code' ? ['activity.secondFactorPassedRecovery'] : ['activity.secondFactorPassed']),
  second_factor_failed: () => ['activity.secondFactorFailed'],
  second_factor_locked: () => ['activity.secondFactorLocked'],
  recovery_code_used: (d) => {
    const left = count(d, 'remaining')
    return left === null ? ['activity.recoveryCodeUsed'] : ['activity.recoveryCodeUsedLeft', { count: left }]
  },
  recovery_codes_regenerated: () => ['activity.recoveryCodesRegenerated'],
  passkey_counter_regressed: () => ['activity.passkeyCounterRegressed'],
  reauthenticated: () => ['activity.reauthenticated'],
  // one event per changed field (iam/features/users/profile.ts): the name, the mails' language or their time zone
  profile_updated: (d) => {
    const field = text(d, 'field')
    return field === 'locale' ? ['activity.languageChanged'] : field === 'timeZone' ? ['activity.timeZoneChanged'] : ['activity.profileUpdated']
  },
  oidc_app_authorized: () => ['activity.appAuthorized'],
  oidc_access_revoked: () => ['activity.appRevoked'],
  oidc_device_approved: () => ['activity.deviceApproved'],
  password_set: () => ['activity.passwordSet'],
  provider_unlinked: (d) => {
    const provider = providerName(d)
    return provider ? ['activity.providerUnlinked', { provider }] : ['activity.providerUnlinkedOther']
  },
  org_created: (d) => (text(d, 'orgName') ? ['activity.orgCreated', { org: text(d, 'orgName') }] : ['activity.orgCreatedUnnamed']),
  org_member_invited: (d) => {
    const org = text(d, 'orgName')
    const email = text(d, 'email')
    if (org) return email ? ['activity.orgInvitedTo', { org, email }] : ['activity.orgInvited', { org }]
    return ['activity.orgInvitedUnnamed']
  },
  org_invitation_accepted: (d) => (text(d, 'orgName') ? ['activity.orgJoined', { org: text(d, 'orgName') }] : ['activity.orgJoinedUnnamed']),
  org_member_role_changed: (d) => {
    const org = text(d, 'orgName')
    const role = text(d, 'role')
    if (org) return role ? ['activity.orgRoleChangedTo', { org, role }] : ['activity.orgRoleChanged', { org }]
    return ['activity.orgRoleChangedUnnamed']
  },
  org_member_removed: (d) => (text(d, 'orgName') ? ['activity.orgMemberRemoved', { org: text(d, 'orgName') }] : ['activity.orgMemberRemovedUnnamed']),
  org_left: (d) => (text(d, 'orgName') ? ['activity.orgLeft', { org: text(d, 'orgName') }] : ['activity.orgLeftUnnamed']),
  org_deleted: (d) => (text(d, 'orgName') ? ['activity.orgDeleted', { org: text(d, 'orgName') }] : ['activity.orgDeletedUnnamed']),
  // what the organization's identity provider did through SCIM (iam/features/enterprise/scim-member-events.ts)
  org_member_provisioned: (d) => (text(d, 'orgName') ? ['activity.orgProvisioned', { org: text(d, 'orgName') }] : ['activity.orgProvisionedUnnamed']),
  org_member_deprovisioned: (d) => (text(d, 'orgName') ? ['activity.orgDeprovisioned', { org: text(d, 'orgName') }] : ['activity.orgDeprovisionedUnnamed']),
  org_member_reprovisioned: (d) => (text(d, 'orgName') ? ['activity.orgReprovisioned', { org: text(d, 'orgName') }] : ['activity.orgReprovisionedUnnamed']),
  org_member_unprovisioned: (d) => (text(d, 'orgName') ? ['activity.orgUnprovisioned', { org: text(d, 'orgName') }] : ['activity.orgUnprovisionedUnnamed']),
  org_member_role_provisioned: (d) => {
    const org = text(d, 'orgName')
    const role = text(d, 'role')
    if (org) return role ? ['activity.orgRoleProvisionedTo', { org, role }] : ['activity.orgRoleProvisioned', { org }]
    return ['activity.orgRoleProvisionedUnnamed']
  },
  squatter_setup_removed: () => ['activity.squatterSetupRemoved'],
  api_token_created: (d) => (text(d, 'name') ? ['activity.tokenCreated', { name: text(d, 'name') }] : ['activity.tokenCreatedUnnamed']),
  api_token_rotated: (d) => (text(d, 'name') ? ['activity.tokenRotated', { name: text(d, 'name') }] : ['activity.tokenRotatedUnnamed']),
  api_token_revoked: (d) => {
    const name = text(d, 'name')
    if (text(d, 'by')) return name ? ['activity.tokenRevokedByAdmin', { name }] : ['activity.tokenRevokedByAdminUnnamed']
    return name ? ['activity.tokenRevoked', { name }] : ['activity.tokenRevokedUnnamed']
  },
  api_tokens_revoked_all: (d) => {
    const n = count(d, 'revokedCount') ?? 0
    const reset = text(d, 'cause') === 'password_reset'
    // the event is recorded even when there was nothing to revoke: saying "all revoked" then would alarm for nothing
    if (n === 0) return [reset ? 'activity.tokensRevokedAllNoneReset' : 'activity.tokensRevokedAllNone']
    return [reset ? 'activity.tokensRevokedAllReset' : 'activity.tokensRevokedAll', { count: n }]
  },
  device_banned: () => ['activity.deviceBanned'],
  user_banned: () => ['activity.userBanned'],
  account_deletion_requested: () => ['activity.deletionRequested'],
  account_deletion_confirmed: () => ['activity.deletionConfirmed'],
  account_deletion_cancelled: () => ['activity.deletionCancelled'],
  account_restore_link_sent: (d) => {
    const asked = text(d, 'asked')
    return [asked === 'forgot_password' ? 'activity.restoreLinkSentForgot' : asked === 'email_sign_in' ? 'activity.restoreLinkSentEmailSignIn' : 'activity.restoreLinkSentSignIn']
  },
  admin_granted: () => ['activity.adminGranted'],
  admin_revoked: () => ['activity.adminRevoked'],
  admin_sessions_revoked: (d) => {
    const n = count(d, 'revokedSessions')
    return n === null ? ['activity.adminSessionsRevoked'] : ['activity.adminSessionsRevokedCount', { count: n }]
  },
  admin_factor_removed: (d) => [`activity.adminFactorRemoved.${factorKey(d)}`],
  admin_email_verified: () => ['activity.adminEmailVerified'],
  admin_reset_link_sent: () => ['activity.adminResetLinkSent'],
  user_unbanned: () => ['activity.userUnbanned'],
  // the administrator's own event names the account it signed in as (details.email); the account's own does not
  impersonation_started: (d) => (text(d, 'email') ? ['activity.impersonationStartedAs', { email: text(d, 'email') }] : ['activity.impersonationStarted']),
  impersonation_ended: (d) => (text(d, 'email') ? ['activity.impersonationEndedAs', { email: text(d, 'email') }] : ['activity.impersonationEnded']),
  signing_key_rotated: () => ['activity.signingKeyRotated'],
  oidc_client_created: (d) => (text(d, 'name') ? ['activity.clientCreated', { app: text(d, 'name') }] : ['activity.clientCreatedUnnamed']),
  oidc_client_secret_rotated: () => ['activity.clientSecretRotated'],
  oidc_client_deleted: () => ['activity.clientDeleted'],
  // recorded for the administrator who blocked or unblocked the host (features/oidc/blocked-hosts.ts)
  oidc_client_host_blocked: (d) => ['activity.clientHostBlocked', { host: text(d, 'host') ?? '' }],
  oidc_client_host_unblocked: (d) => ['activity.clientHostUnblocked', { host: text(d, 'host') ?? '' }],
  // recorded for the administrator who imported (or with no account, from the admin CLI)
  users_imported: (d) => {
    const n = count(d, 'imported')
    return n === null ? ['activity.usersImported'] : ['activity.usersImportedCount', { count: n }]
  },
  signed_up: (d) => {
    const provider = providerName(d)
    if (text(d, 'method') === 'scim' && text(d, 'orgName')) return ['activity.signedUpScim', { org: text(d, 'orgName') }]
    return text(d, 'method') === 'oauth' && provider ? ['activity.signedUpWith', { provider }] : ['activity.signedUp']
  },
  // the IAM ended a session on its own (iam/features/anomalies): the reason tells the owner whether to worry
  session_revoked_anomaly: (d) => (text(d, 'reason') === 'refresh_token_reused' ? ['activity.sessionRevokedCopied'] : ['activity.sessionRevokedSafety']),
}

const isKnownType = (type: string): type is SecurityEventType => Object.hasOwn(LABELS, type)

/** The catalogue key and named values of one event; `UNKNOWN_SECURITY_EVENT` for a kind this page has no words for. */
export function securityEventWords(event: { type: string; details?: Details }): Words {
  return isKnownType(event.type) ? LABELS[event.type](event.details ?? {}) : [UNKNOWN_SECURITY_EVENT]
}

/** The sentence for one event in the page's language (`t` of useI18n). */
export function describeSecurityEvent(event: { type: string; details?: Details }, t: Translate): string {
  const [key, named = {}] = securityEventWords(event)
  // a `count` is a counted message's number: its form follows the language's plural rule (i18n/plural-forms.ts)
  return t(key, named, typeof named.count === 'number' ? named.count : 1)
}
