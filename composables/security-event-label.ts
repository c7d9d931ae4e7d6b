/**
 * What a security event says to its owner, in words. The IAM's event names are for programs
 * (`api_tokens_revoked_all`); a person reads what happened, using the event's `details` where they
 * change the story (a passkey is not an authenticator app, a revoke-all that found no token revoked
 * nothing). The table is typed over every recorded kind, so a new kind fails the typecheck until it
 * has words here.
 */
import type { SecurityEventType } from '../iam/contract/security-event-types'

type Details = Record<string, unknown>

/** Shown for a kind this page does not know (an IAM newer than the page): never the raw name. */
export const UNKNOWN_SECURITY_EVENT = 'Security event'

const count = (details: Details, key: string): number | null => {
  const value = details[key]
  return typeof value === 'number' && Number.isFinite(value) ? value : null
}
const text = (details: Details, key: string): string | null => {
  const value = details[key]
  return typeof value === 'string' && value.trim() ? value.trim() : null
}
const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`

/** "an authenticator app" / "a passkey": the second factor named by what the person holds. */
function factorName(details: Details): string {
  const method = text(details, 'method')
  if (method === 'passkey') return 'Passkey'
  if (method === 'totp') return 'Authenticator app for two-step sign-in'
  return 'Two-step sign-in method'
}

function providerName(details: Details): string | null {
  const provider = text(details, 'provider')
  return provider ? provider.charAt(0).toUpperCase() + provider.slice(1) : null
}

/** “Acme” / the organization: named by what the event recorded */
const orgNamed = (details: Details) => {
  const name = text(details, 'orgName')
  return name ? `“${name}”` : 'an organization'
}

const tokenNamed = (details: Details) => {
  const name = text(details, 'name')
  return name ? `API token “${name}”` : 'API token'
}

const LABELS: Record<SecurityEventType, (details: Details) => string> = {
  login_succeeded: (d) => {
    const provider = providerName(d)
    if (text(d, 'method') === 'oauth') return provider ? `Signed in with ${provider}` : 'Signed in with another account'
    if (text(d, 'method') === 'password') return 'Signed in with your password'
    return 'Signed in'
  },
  login_failed: (d) => {
    // a code of the event's details (features/users/login-service.ts), not a sentence
    const cause = text(d, 'reason')
    if (cause === 'banned') return 'Sign-in refused: the account is suspended'
    if (cause === 'deletion_pending') return 'Sign-in refused: the account was scheduled for deletion'
    return 'Failed sign-in attempt'
  },
  passkey_sign_in: () => 'Signed in with a passkey',
  mfa_sent: () => 'Unusual sign-in: a confirmation code was mailed',
  mfa_verified: () => 'Sign-in confirmed',
  mfa_failed: () => 'Wrong sign-in confirmation code',
  custom_mfa_started: () => 'Confirmation of an action requested',
  custom_mfa_verified: () => 'Action confirmed',
  session_revoked: () => 'A session was signed out',
  sessions_revoked_others: (d) => {
    const n = count(d, 'revokedSessions')
    if (n === null) return 'Signed out everywhere else'
    return n === 0 ? 'Signed out everywhere else: there were no other sessions' : `Signed out everywhere else (${plural(n, 'session', 'sessions')})`
  },
  password_changed: () => 'Password changed',
  password_reset_requested: () => 'Password reset requested',
  password_reset: (d) => (text(d, 'by') === 'email_verification' ? 'New password set while confirming your email address' : 'Password reset'),
  email_changed: () => 'Email address changed',
  email_change_undone: () => 'Email change undone',
  email_verified: () => 'Email address confirmed',
  second_factor_added: (d) => `${factorName(d)} added`,
  second_factor_removed: (d) => `${factorName(d)} removed`,
  second_factor_passed: (d) =>
    text(d, 'method') === 'recovery_code' ? 'Two-step sign-in passed with a recovery code' : 'Two-step sign-in passed with your authenticator app',
  second_factor_failed: () => 'Wrong two-step sign-in code',
  second_factor_locked: () => 'Code entry locked after wrong two-step codes',
  recovery_code_used: (d) => {
    const left = count(d, 'remaining')
    return left === null ? 'Recovery code used' : `Recovery code used (${plural(left, 'code', 'codes')} left)`
  },
  recovery_codes_regenerated: () => 'New recovery codes made: the old ones stopped working',
  passkey_counter_regressed: () => 'A passkey reported an unexpected use count: it may have been copied',
  reauthenticated: () => 'Sign-in confirmed again for a sensitive change',
  profile_updated: () => 'Name changed',
  oidc_app_authorized: () => 'An app was given access to your account',
  oidc_access_revoked: () => 'An app’s access to your account was removed',
  oidc_device_approved: () => 'A device was signed in with a code',
  password_set: () => 'Password set: you can now sign in with your email address and password',
  provider_unlinked: (d) => {
    const provider = providerName(d)
    return provider ? `${provider} account unlinked: it no longer signs you in` : 'Linked account removed: it no longer signs you in'
  },
  org_created: (d) => (text(d, 'orgName') ? `Organization ${orgNamed(d)} created` : 'An organization was created'),
  org_member_invited: (d) => `Invitation to ${orgNamed(d)} sent${text(d, 'email') ? ` to ${text(d, 'email')}` : ''}`,
  org_invitation_accepted: (d) => `You joined ${orgNamed(d)}`,
  org_member_role_changed: (d) => `A member’s role in ${orgNamed(d)} changed${text(d, 'role') ? ` to ${text(d, 'role')}` : ''}`,
  org_member_removed: (d) => `A member was removed from ${orgNamed(d)}`,
  org_left: (d) => `You left ${orgNamed(d)}`,
  org_deleted: (d) => (text(d, 'orgName') ? `Organization ${orgNamed(d)} deleted` : 'An organization was deleted'),
  squatter_setup_removed: () => 'Sign-in methods set up before your address was confirmed were removed',
  api_token_created: (d) => `${tokenNamed(d)} created`,
  api_token_rotated: (d) => `${tokenNamed(d)} rotated`,
  api_token_revoked: (d) => `${tokenNamed(d)} revoked${text(d, 'by') ? ' by an administrator' : ''}`,
  api_tokens_revoked_all: (d) => {
    const n = count(d, 'revokedCount') ?? 0
    const reset = text(d, 'cause') === 'password_reset' ? ' with the password reset' : ''
    // the event is recorded even when there was nothing to revoke: saying "all revoked" then would alarm for nothing
    return n > 0 ? `All API tokens revoked${reset} (${plural(n, 'token', 'tokens')})` : `Revoke all${reset}: there were no tokens`
  },
  device_banned: () => 'A device was blocked',
  user_banned: () => 'Account suspended by an administrator',
  account_deletion_requested: () => 'Account deletion requested: a confirmation link was mailed',
  account_deletion_confirmed: () => 'Account deletion confirmed: the account was disabled',
  account_deletion_cancelled: () => 'Account deletion cancelled with the mailed undo link',
  account_restore_link_sent: (d) =>
    text(d, 'asked') === 'forgot_password'
      ? 'A password reset was asked for while the account was scheduled for deletion: the restore link was mailed'
      : 'The restore link was mailed after a sign-in while the account was scheduled for deletion',
  admin_granted: () => 'Platform administrator role granted',
  admin_revoked: () => 'Platform administrator role removed',
  admin_sessions_revoked: (d) => {
    const n = count(d, 'revokedSessions')
    return n === null ? 'Signed out everywhere by an administrator' : `Signed out everywhere by an administrator (${plural(n, 'session', 'sessions')})`
  },
  admin_factor_removed: (d) => `${factorName(d)} removed by an administrator`,
  admin_email_verified: () => 'Email address marked as confirmed by an administrator',
  admin_reset_link_sent: () => 'A password reset link was mailed to you by an administrator',
  user_unbanned: () => 'Account suspension lifted',
  // the administrator's own event names the account it signed in as (details.email); the account's own does not
  impersonation_started: (d) =>
    text(d, 'email') ? `You signed in as ${text(d, 'email')} on their behalf` : 'An administrator signed in to your account on your behalf',
  impersonation_ended: (d) =>
    text(d, 'email') ? `Your session as ${text(d, 'email')} ended` : 'The administrator’s session on your behalf ended',
  signing_key_rotated: () => 'Signing keys rotated by an administrator',
  oidc_client_created: (d) => (text(d, 'name') ? `App “${text(d, 'name')}” registered by an administrator` : 'An app was registered by an administrator'),
  oidc_client_secret_rotated: () => "An app's secret was replaced by an administrator",
  oidc_client_deleted: () => 'An app was removed by an administrator',
  // recorded for the administrator who imported (or with no account, from the admin CLI)
  users_imported: (d) => {
    const n = count(d, 'imported')
    return n === null ? 'Accounts imported' : `You imported ${plural(n, 'account', 'accounts')}`
  },
  signed_up: (d) => {
    const provider = providerName(d)
    return text(d, 'method') === 'oauth' && provider ? `Account created with ${provider}` : 'Account created'
  },
  // the IAM ended a session on its own (iam/features/anomalies): the reason tells the owner whether to worry
  session_revoked_anomaly: (d) =>
    text(d, 'reason') === 'refresh_token_reused'
      ? 'A session was signed out for your safety: its sign-in was used again from another place, as if copied'
      : 'A session was signed out for your safety',
}

const isKnownType = (type: string): type is SecurityEventType => Object.hasOwn(LABELS, type)

/** The sentence for one event; `UNKNOWN_SECURITY_EVENT` for a kind this page has no words for. */
export function describeSecurityEvent(event: { type: string; details?: Details }): string {
  return isKnownType(event.type) ? LABELS[event.type](event.details ?? {}) : UNKNOWN_SECURITY_EVENT
}
