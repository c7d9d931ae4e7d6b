/**
 * Every migration, by dated name. Static imports (not a folder scan) so the bundled server carries
 * them; the Migrator runs them in name order.
 */
import type { Migration } from 'kysely/migration'
import * as initial from './2026-11-21-0001-initial'
import * as secondFactor from './2026-11-24-0002-second-factor'
import * as passkeys from './2026-11-24-0003-passkeys'
import * as anomalyMarker from './2026-11-25-0004-anomaly-marker'
import * as sessionFamiliesUserIdx from './2026-11-25-0005-session-families-user-idx'
import * as familyRefreshExpiry from './2026-11-25-0006-family-refresh-expiry'
import * as tokenSuspension from './2026-11-26-0007-token-suspension'
import * as factorLifecycle from './2026-11-26-0008-factor-lifecycle'
import * as openidProvider from './2026-11-27-0009-openid-provider'
import * as organizations from './2026-11-27-0010-organizations'
import * as accountDeletion from './2026-11-27-0011-account-deletion'
import * as impersonation from './2026-11-27-0012-impersonation'
import * as externalIds from './2026-11-29-0013-external-ids'
import * as userLocale from './2026-11-29-0014-user-locale'
import * as banReason from './2026-11-29-0015-ban-reason'
import * as webhooks from './2026-11-29-0016-webhooks'
import * as emailSignIn from './2026-11-29-0018-email-sign-in'
import * as enterpriseSso from './2026-11-29-0019-enterprise-sso'
import * as scim from './2026-11-29-0020-scim'
import * as samlFirstFactor from './2026-11-29-0021-saml-first-factor'
import * as oidcClientHosts from './2026-11-29-0022-oidc-client-hosts'
import * as passkeySignups from './2026-11-30-0023-passkey-signups'
import * as userTimeZone from './2026-11-30-0024-user-time-zone'
import * as botCheckFailures from './2026-11-30-0025-bot-check-failures'
import * as timeZoneChoice from './2026-11-30-0026-time-zone-choice'
import * as profilePictures from './2026-11-30-0027-profile-pictures'
import * as webhookWritePath from './2026-12-01-0028-webhook-write-path'
import * as webhookSuccessOnDelivery from './2026-12-01-0029-webhook-success-on-delivery'
import * as organizationWebhooks from './2026-12-02-0030-organization-webhooks'

export const migrations: Record<string, Migration> = {
  '2026-11-21-0001-initial': initial,
  '2026-11-24-0002-second-factor': secondFactor,
  '2026-11-24-0003-passkeys': passkeys,
  '2026-11-25-0004-anomaly-marker': anomalyMarker,
  '2026-11-25-0005-session-families-user-idx': sessionFamiliesUserIdx,
  '2026-11-25-0006-family-refresh-expiry': familyRefreshExpiry,
  '2026-11-26-0007-token-suspension': tokenSuspension,
  '2026-11-26-0008-factor-lifecycle': factorLifecycle,
  '2026-11-27-0009-openid-provider': openidProvider,
  '2026-11-27-0010-organizations': organizations,
  '2026-11-27-0011-account-deletion': accountDeletion,
  '2026-11-27-0012-impersonation': impersonation,
  '2026-11-29-0013-external-ids': externalIds,
  '2026-11-29-0014-user-locale': userLocale,
  '2026-11-29-0015-ban-reason': banReason,
  '2026-11-29-0016-webhooks': webhooks,
  '2026-11-29-0018-email-sign-in': emailSignIn,
  '2026-11-29-0019-enterprise-sso': enterpriseSso,
  '2026-11-29-0020-scim': scim,
  '2026-11-29-0021-saml-first-factor': samlFirstFactor,
  '2026-11-29-0022-oidc-client-hosts': oidcClientHosts,
  '2026-11-30-0023-passkey-signups': passkeySignups,
  '2026-11-30-0024-user-time-zone': userTimeZone,
  '2026-11-30-0025-bot-check-failures': botCheckFailures,
  '2026-11-30-0026-time-zone-choice': timeZoneChoice,
  '2026-11-30-0027-profile-pictures': profilePictures,
  '2026-12-01-0028-webhook-write-path': webhookWritePath,
  '2026-12-01-0029-webhook-success-on-delivery': webhookSuccessOnDelivery,
  '2026-12-02-0030-organization-webhooks': organizationWebhooks,
}
