/**
 * Every kind of security event the IAM records, as a value: the account page labels each one, and
 * its component test walks this list, so a new kind cannot reach people without words for it.
 */
export const SECURITY_EVENT_TYPES = [
  'mfa_verified',
  'mfa_sent',
  'custom_mfa_started',
  'custom_mfa_verified',
  'email_changed',
  'password_reset_requested',
  'password_reset',
  'email_verified',
  'email_change_undone',
  'api_tokens_revoked_all',
  'login_succeeded',
  'login_failed',
  'mfa_failed',
  'session_revoked',
  'sessions_revoked_others',
  'password_changed',
  'second_factor_added',
  'second_factor_removed',
  'api_token_created',
  'api_token_rotated',
  'api_token_revoked',
  'device_banned',
  'user_banned',
  'user_unbanned',
  'signing_key_rotated',
  'oidc_client_created',
  'oidc_client_secret_rotated',
  'oidc_client_deleted',
  // an administrator blocked or unblocked a metadata-document host from the console
  // (features/oidc/blocked-hosts.ts): recorded on the administrator's own account, details.host
  'oidc_client_host_blocked',
  'oidc_client_host_unblocked',
  'second_factor_passed',
  'second_factor_failed',
  'recovery_code_used',
  'recovery_codes_regenerated',
  'passkey_sign_in',
  'passkey_counter_regressed',
  'second_factor_locked',
  'reauthenticated',
  'squatter_setup_removed',
  'profile_updated',
  // the OpenID Provider (features/oidc): an app given access, access taken back, a device signed in
  'oidc_app_authorized',
  'oidc_access_revoked',
  'oidc_device_approved',
  'signed_up',
  'session_revoked_anomaly',
  'password_set',
  'provider_unlinked',
  // organizations (features/organizations): recorded for the acting user; details name the organization
  'org_created',
  'org_member_invited',
  'org_invitation_accepted',
  'org_member_role_changed',
  'org_member_removed',
  'org_left',
  'org_deleted',
  // the organization's identity provider through SCIM (features/enterprise/scim-users.ts,
  // scim-groups.ts): recorded on the account of the person acted on, with the SCIM client's
  // address; details name the organization, the member and `method: 'scim'`. Made or linked into a
  // membership, deactivated (`active: false`), reactivated, its SCIM User deleted, its role set by
  // a group.
  'org_member_provisioned',
  'org_member_deprovisioned',
  'org_member_reprovisioned',
  'org_member_unprovisioned',
  'org_member_role_provisioned',
  // platform administration: the role (admin CLI), and what an administrator did to the account
  // (features/admin; details.adminId is the administrator's public id)
  'admin_granted',
  'admin_revoked',
  'admin_sessions_revoked',
  'admin_factor_removed',
  'admin_email_verified',
  'admin_reset_link_sent',
  // self-service deletion (features/account-deletion): asked, confirmed from the mail, undone, and
  // the undo link mailed again while the deletion waits (details.asked: 'sign_in' | 'forgot_password' | 'email_sign_in')
  'account_deletion_requested',
  'account_deletion_confirmed',
  'account_deletion_cancelled',
  'account_restore_link_sent',
  // accounts brought in from a JSON Lines file (features/users/import-users.ts): recorded for the
  // administrator who posted it (details.adminId), or with no account by the admin CLI (`by: 'admin-cli'`)
  'users_imported',
  // impersonation: recorded on BOTH the account and the administrator's own (details.adminId, details.userId)
  'impersonation_started',
  'impersonation_ended',
] as const

export type SecurityEventType = (typeof SECURITY_EVENT_TYPES)[number]
