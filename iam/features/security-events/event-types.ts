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
  'second_factor_passed',
  'second_factor_failed',
  'recovery_code_used',
  'passkey_sign_in',
  'passkey_counter_regressed',
  'second_factor_locked',
  'reauthenticated',
  'squatter_setup_removed',
  'profile_updated',
  'password_set',
  'provider_unlinked',
] as const

export type SecurityEventType = (typeof SECURITY_EVENT_TYPES)[number]
