/**
 * components/SecurityActivity.vue: every kind of event the IAM records reads as a sentence, told
 * apart by its details where they change the story, and never as the IAM's own event name.
 */
import { mountSuspended } from '@nuxt/test-utils/runtime'
import { describe, expect, it, vi } from 'vitest'
import SecurityActivity from '../../components/SecurityActivity.vue'
import { SECURITY_EVENT_TYPES, type SecurityEventType } from '../../iam/contract/security-event-types'
import { answer } from './bff'

type Case = [details: Record<string, unknown>, label: string]

/** What the owner reads for each recorded kind, with the details the IAM writes for it. */
const EXPECTED: Record<SecurityEventType, Case[]> = {
  login_succeeded: [
    [{ method: 'password', sessionId: 's' }, 'Signed in with your password'],
    [{ method: 'oauth', provider: 'github', sessionId: 's' }, 'Signed in with Github'],
    [{}, 'Signed in'],
  ],
  login_failed: [
    [{ method: 'password', reason: 'invalid_credentials' }, 'Failed sign-in attempt'],
    [{ method: 'password', reason: 'banned' }, 'Sign-in refused: the account is suspended'],
    [{ method: 'password', reason: 'deletion_pending' }, 'Sign-in refused: the account was scheduled for deletion'],
  ],
  passkey_sign_in: [[{ passkeyId: 1 }, 'Signed in with a passkey']],
  mfa_sent: [[{ anomaly: 'NEW_DEVICE' }, 'Unusual sign-in: a confirmation code was mailed']],
  mfa_verified: [[{}, 'Sign-in confirmed']],
  mfa_failed: [[{}, 'Wrong sign-in confirmation code']],
  custom_mfa_started: [[{}, 'Confirmation of an action requested']],
  custom_mfa_verified: [[{}, 'Action confirmed']],
  session_revoked: [[{ sessionId: 's' }, 'A session was signed out']],
  sessions_revoked_others: [
    [{ revokedSessions: 2 }, 'Signed out everywhere else (2 sessions)'],
    [{ revokedSessions: 0 }, 'Signed out everywhere else: there were no other sessions'],
  ],
  password_changed: [[{ revokedSessions: 1 }, 'Password changed']],
  password_reset_requested: [[{}, 'Password reset requested']],
  password_reset: [
    [{}, 'Password reset'],
    [{ by: 'email_verification' }, 'New password set while confirming your email address'],
  ],
  email_changed: [[{ from: 'a***@example.com', to: 'b***@example.com' }, 'Email address changed']],
  email_change_undone: [[{}, 'Email change undone']],
  email_verified: [[{ with: 'device' }, 'Email address confirmed']],
  second_factor_added: [
    [{ method: 'passkey', passkeyId: 1 }, 'Passkey added'],
    [{ method: 'totp' }, 'Authenticator app for two-step sign-in added'],
  ],
  second_factor_removed: [
    [{ method: 'passkey', passkeyId: 1 }, 'Passkey removed'],
    [{ method: 'totp', with: 'totp' }, 'Authenticator app for two-step sign-in removed'],
  ],
  second_factor_passed: [
    [{ method: 'totp' }, 'Two-step sign-in passed with your authenticator app'],
    [{ method: 'recovery_code' }, 'Two-step sign-in passed with a recovery code'],
  ],
  second_factor_failed: [[{ method: 'totp', purpose: 'sign_in' }, 'Wrong two-step sign-in code']],
  second_factor_locked: [[{ lockMs: 900_000 }, 'Code entry locked after wrong two-step codes']],
  recovery_code_used: [
    [{ purpose: 'sign_in', remaining: 1 }, 'Recovery code used (1 code left)'],
    [{ purpose: 'sign_in', remaining: 7 }, 'Recovery code used (7 codes left)'],
  ],
  recovery_codes_regenerated: [[{ count: 10 }, 'New recovery codes made: the old ones stopped working']],
  passkey_counter_regressed: [[{ passkeyId: 1, stored: 5, received: 2 }, 'A passkey reported an unexpected use count: it may have been copied']],
  reauthenticated: [[{ method: 'password' }, 'Sign-in confirmed again for a sensitive change']],
  squatter_setup_removed: [[{ by: 'password_reset' }, 'Sign-in methods set up before your address was confirmed were removed']],
  profile_updated: [
    [{ field: 'name' }, 'Name changed'],
    [{ field: 'locale' }, 'Language of your emails changed'],
    [{ field: 'timeZone' }, 'Time zone of your emails changed'],
  ],
  oidc_app_authorized: [[{ clientId: 'c1', firstParty: false }, 'An app was given access to your account']],
  oidc_access_revoked: [[{ clientId: 'c1' }, 'An app’s access to your account was removed']],
  oidc_device_approved: [[{ clientId: 'c1' }, 'A device was signed in with a code']],
  password_set: [[{}, 'Password set: you can now sign in with your email address and password']],
  provider_unlinked: [
    [{ provider: 'github' }, 'Github account unlinked: it no longer signs you in'],
    [{}, 'Linked account removed: it no longer signs you in'],
  ],
  org_created: [
    [{ orgId: 'o', orgName: 'Acme' }, 'Organization “Acme” created'],
    [{}, 'An organization was created'],
  ],
  org_member_invited: [
    [{ orgName: 'Acme', email: 'ann@example.com', role: 'member' }, 'Invitation to “Acme” sent to ann@example.com'],
    [{}, 'Invitation to an organization sent'],
  ],
  org_invitation_accepted: [[{ orgName: 'Acme', role: 'member' }, 'You joined “Acme”']],
  org_member_role_changed: [
    [{ orgName: 'Acme', member: 'u', role: 'admin' }, 'A member’s role in “Acme” changed to admin'],
    [{}, 'A member’s role in an organization changed'],
  ],
  org_member_removed: [[{ orgName: 'Acme', member: 'u' }, 'A member was removed from “Acme”']],
  org_left: [[{ orgName: 'Acme' }, 'You left “Acme”']],
  org_deleted: [
    [{ orgName: 'Acme', slug: 'acme' }, 'Organization “Acme” deleted'],
    [{}, 'An organization was deleted'],
  ],
  org_member_provisioned: [
    [{ orgId: 'o', orgName: 'Acme', member: 'm', role: 'member', method: 'scim' }, 'The identity provider of “Acme” made you a member'],
    [{}, 'An organization’s identity provider made you a member'],
  ],
  org_member_deprovisioned: [
    [{ orgId: 'o', orgName: 'Acme', member: 'm', method: 'scim' }, 'The identity provider of “Acme” deactivated your membership'],
    [{}, 'An organization’s identity provider deactivated your membership'],
  ],
  org_member_reprovisioned: [
    [{ orgId: 'o', orgName: 'Acme', member: 'm', method: 'scim' }, 'The identity provider of “Acme” reactivated your membership'],
    [{}, 'An organization’s identity provider reactivated your membership'],
  ],
  org_member_unprovisioned: [
    [{ orgId: 'o', orgName: 'Acme', member: 'm', method: 'scim' }, 'The identity provider of “Acme” removed you from it'],
    [{}, 'An organization’s identity provider removed you from it'],
  ],
  org_member_role_provisioned: [
    [{ orgId: 'o', orgName: 'Acme', member: 'm', role: 'Engineers', method: 'scim' }, 'The identity provider of “Acme” changed your role to Engineers'],
    [{ orgName: 'Acme' }, 'The identity provider of “Acme” changed your role'],
    [{}, 'An organization’s identity provider changed your role'],
  ],
  api_token_created: [[{ name: 'ci' }, 'API token “ci” created']],
  api_token_rotated: [[{ name: 'ci', publicIdentifier: 'p' }, 'API token “ci” rotated']],
  api_token_revoked: [
    [{ name: 'ci', publicIdentifier: 'p' }, 'API token “ci” revoked'],
    [{ name: 'ci', publicIdentifier: 'p', by: 'cli' }, 'API token “ci” revoked by an administrator'],
  ],
  api_tokens_revoked_all: [
    [{ cause: 'manage', revokedCount: 3, tokenIds: [1, 2, 3] }, 'All API tokens revoked (3 tokens)'],
    [{ cause: 'manage', revokedCount: 0, tokenIds: [] }, 'Revoke all: there were no tokens'],
    [{ cause: 'password_reset', revokedCount: 1, tokenIds: [4] }, 'All API tokens revoked with the password reset (1 token)'],
  ],
  device_banned: [[{ reason: 'xss' }, 'A device was blocked']],
  user_banned: [[{ by: 'cli' }, 'Account suspended by an administrator']],
  user_unbanned: [[{ by: 'cli' }, 'Account suspension lifted']],
  admin_granted: [[{ by: 'admin-cli' }, 'Platform administrator role granted']],
  admin_revoked: [[{ by: 'admin-cli' }, 'Platform administrator role removed']],
  admin_sessions_revoked: [
    [{ by: 'admin', adminId: 'a1', revokedSessions: 2 }, 'Signed out everywhere by an administrator (2 sessions)'],
    [{ by: 'admin', adminId: 'a1' }, 'Signed out everywhere by an administrator'],
  ],
  admin_factor_removed: [
    [{ method: 'totp', by: 'admin', adminId: 'a1' }, 'Authenticator app for two-step sign-in removed by an administrator'],
    [{ method: 'passkey', passkeyId: 3, by: 'admin', adminId: 'a1' }, 'Passkey removed by an administrator'],
  ],
  admin_email_verified: [[{ by: 'admin', adminId: 'a1' }, 'Email address marked as confirmed by an administrator']],
  admin_reset_link_sent: [[{ by: 'admin', adminId: 'a1' }, 'A password reset link was mailed to you by an administrator']],
  account_deletion_requested: [[{}, 'Account deletion requested: a confirmation link was mailed']],
  account_deletion_confirmed: [[{ dueAt: '2026-12-04T10:00:00.000Z', revokedSessions: 2, revokedApiTokens: 1 }, 'Account deletion confirmed: the account was disabled']],
  account_deletion_cancelled: [[{}, 'Account deletion cancelled with the mailed undo link']],
  account_restore_link_sent: [
    [{ asked: 'sign_in' }, 'The restore link was mailed after a sign-in while the account was scheduled for deletion'],
    [{ asked: 'forgot_password' }, 'A password reset was asked for while the account was scheduled for deletion: the restore link was mailed'],
  ],
  // the account's own event names the administrator only; the administrator's names the account it signed in as
  impersonation_started: [
    [{ by: 'admin', adminId: 'a1', userId: 'u1', sessionId: 's1' }, 'An administrator signed in to your account on your behalf'],
    [{ by: 'admin', adminId: 'a1', userId: 'u1', sessionId: 's1', email: 'ada@example.com' }, 'You signed in as ada@example.com on their behalf'],
  ],
  impersonation_ended: [
    [{ by: 'admin', adminId: 'a1', userId: 'u1', reason: 'logout' }, 'The administrator’s session on your behalf ended'],
    [{ by: 'admin', adminId: 'a1', userId: 'u1', reason: 'logout', email: 'ada@example.com' }, 'Your session as ada@example.com ended'],
  ],
  signing_key_rotated: [[{ kid: 'k1', by: 'cli' }, 'Signing keys rotated by an administrator']],
  oidc_client_created: [
    [{ clientId: 'c1', name: 'Wiki', by: 'cli' }, 'App “Wiki” registered by an administrator'],
    [{ clientId: 'c1', by: 'cli' }, 'An app was registered by an administrator'],
  ],
  oidc_client_secret_rotated: [[{ clientId: 'c1', by: 'cli' }, 'An app’s secret was replaced by an administrator']],
  oidc_client_deleted: [[{ clientId: 'c1', by: 'cli' }, 'An app was removed by an administrator']],
  oidc_client_host_blocked: [[{ host: 'agent.example', revokedGrants: 2 }, 'An administrator blocked the agents of agent.example']],
  oidc_client_host_unblocked: [[{ host: 'agent.example' }, 'An administrator unblocked the agents of agent.example']],
  users_imported: [
    [{ by: 'admin', adminId: 'a1', lines: 3, imported: 2, skipped: 1, invalid: 0 }, 'You imported 2 accounts'],
    [{ by: 'admin', adminId: 'a1', lines: 1, imported: 1, skipped: 0, invalid: 0 }, 'You imported 1 account'],
    [{}, 'Accounts imported'],
  ],
  signed_up: [
    [{ method: 'password', sessionId: 's' }, 'Account created'],
    [{ method: 'oauth', provider: 'github' }, 'Account created with Github'],
    [{ method: 'scim', orgId: 'o', orgName: 'Acme' }, 'Account created by the identity provider of “Acme”'],
  ],
  session_revoked_anomaly: [
    [
      { reason: 'refresh_token_reused', sessionId: 's' },
      'A session was signed out for your safety: its sign-in was used again from another place, as if copied',
    ],
    [{ reason: 'something_new', sessionId: 's' }, 'A session was signed out for your safety'],
  ],
}

async function activityShowing(events: Array<{ type: string; details?: Record<string, unknown>; createdAt?: string }>) {
  answer('GET', '/api/auth/security-events', 200, {
    ok: true,
    data: { events: events.map((e, i) => ({ id: i + 1, createdAt: '2026-01-02T03:04:05.000Z', ipAddress: '203.0.113.7', ...e })) },
  })
  const section = await mountSuspended(SecurityActivity)
  await vi.waitFor(() => expect(section.findAll('.what')).toHaveLength(events.length))
  return section
}

describe('security activity', () => {
  it.each([...SECURITY_EVENT_TYPES])('words every recorded kind, here %s, from its details', async (type) => {
    // a kind added to the IAM's list without expectations here fails, before any person sees it
    const cases = EXPECTED[type]
    expect(cases?.length).toBeGreaterThan(0)
    const section = await activityShowing(cases.map(([details]) => ({ type, details })))
    expect(section.findAll('.what').map((w) => w.text())).toEqual(cases.map(([, label]) => label))
    expect(section.text()).not.toContain(type)
  })

  it('calls a kind it does not know "Security event", never by its raw name', async () => {
    const section = await activityShowing([{ type: 'quantum_key_bent', details: {} }])
    expect(section.find('.what').text()).toBe('Security event')
    expect(section.text()).not.toMatch(/quantum/i)
  })

  it('shows a recent moment in words and keeps the exact date in the title', async () => {
    const section = await activityShowing([{ type: 'password_changed', createdAt: new Date(Date.now() - 5 * 60_000 - 5_000).toISOString() }])
    const time = section.find('time')
    expect(time.text()).toBe('5 minutes ago')
    expect(time.attributes('title')).toMatch(/\d{4}/)
  })
})
