/**
 * Every mail kind rendered with sample values: the administrator's preview (POST
 * /admin/mail-templates/:kind/:locale/preview), the English snapshots in docs/mails/ and the
 * layout test in a browser. The values are made up and say so (example.com, documentation
 * addresses of RFC 5737).
 */
import type { Locale } from '../../contract/locales'
import type { MailKind } from './catalogue/catalogues'
import * as mails from './templates'
import { signupUrlFor } from './no-account'
import type { LocalizedMail } from './templates'

const AT = new Date('2026-11-29T14:05:00.000Z')
const IP = '192.0.2.10'

/** The mail `kind` in `locale` with sample values; links go to `siteUrl` (the configured magic_links.domain). */
export function sampleMail(kind: MailKind, locale: Locale, siteName: string, siteUrl: string): LocalizedMail {
  const url = (path: string, query = 'token=sample-token') => `${new URL(path, siteUrl).toString()}?${query}`
  const base = { siteName, locale }
  const code = { ...base, link: url('/auth/verify-mfa'), code: '123456', codeTtlMs: 15 * 60_000 }
  const tokens = [{ name: 'deploy', publicIdentifier: 'tok_3f9a' }]
  switch (kind) {
    case 'adaptiveMfa':
      return mails.adaptiveMfaMail({ ...code, anomaly: 'NEW_DEVICE', ipAddress: IP })
    case 'customAction':
      return mails.customActionMail({ ...code, link: url('/auth/verify-custom-mfa'), reason: 'PAYMENT_CONFIRM', note: 'Invoice 2026-114' })
    case 'emailChangeUndone':
      return mails.emailChangeUndoneNotice({ ...base, when: AT, ipAddress: IP, removed: { totp: true, passkeys: 2, apiTokens: 1, providerLinks: 0 }, passwordCleared: true, forgotUrl: new URL('/forgot-password', siteUrl).toString() })
    case 'reauthenticateCode':
      return mails.reauthenticateCodeMail({ ...base, code: '123456', codeTtlMs: 10 * 60_000 })
    case 'verifyEmail':
      return mails.verifyEmailMail({ ...base, link: url('/auth/verify-email'), linkTtlMs: 24 * 3_600_000 })
    case 'emailChanged':
      return mails.emailChangedNotice({ ...base, when: AT, ipAddress: IP, newEmailMasked: 'n***@example.com', undoLink: url('/auth/undo-email-change'), undoTtlMs: 7 * 86_400_000, tokens })
    case 'orgInvitation':
      return mails.orgInvitationMail({ ...base, orgName: 'Example Team', inviterName: 'Ada Lovelace', link: url('/orgs/invitations/accept'), linkTtlMs: 7 * 86_400_000 })
    case 'emailSignIn':
      return mails.emailSignInMail({ ...base, link: url('/auth/email-sign-in'), linkTtlMs: 15 * 60_000, code: '1234567', codeTtlMs: 7 * 60_000 })
    case 'passkeySignup':
      return mails.passkeySignupMail({ ...base, code: '1234567', codeTtlMs: 7 * 60_000 })
    case 'accountExists':
      return mails.accountExistsMail({ ...base, loginUrl: new URL('/login', siteUrl).toString() })
    case 'noAccount':
      return mails.noAccountMail({ ...base, asked: 'email_sign_in', signupUrl: signupUrlFor(siteUrl) })
    case 'passwordReset':
      return mails.passwordResetMail({ ...base, link: url('/auth/reset-password'), linkTtlMs: 15 * 60_000 })
    case 'passwordChanged':
      return mails.passwordChangedNotice({ ...base, when: AT, ipAddress: IP, tokens, revokedTokens: 2 })
    case 'useProvider':
      return mails.useProviderMail({ ...base, providers: ['github', 'google'], loginUrl: new URL('/login', siteUrl).toString() })
    case 'secondFactor':
      return mails.secondFactorNotice({ ...base, change: 'recovery_code_used', when: AT, ipAddress: IP, recoveryCodesLeft: 3 })
    case 'deleteAccount':
      return mails.deleteAccountMail({ ...base, link: url('/auth/delete-account'), linkTtlMs: 15 * 60_000, undoWindowMs: 30 * 86_400_000 })
    case 'accountDisabled':
      return mails.accountDisabledNotice({ ...base, eraseAt: new Date(AT.getTime() + 30 * 86_400_000), undoLink: url('/auth/undo-delete-account'), undoTtlMs: 30 * 86_400_000 })
    case 'restoreLink':
      return mails.restoreLinkMail({ ...base, asked: 'forgot_password', eraseAt: new Date(AT.getTime() + 30 * 86_400_000), undoLink: url('/auth/undo-delete-account'), undoTtlMs: 30 * 86_400_000 })
    case 'accountRestored':
      return mails.accountRestoredNotice({ ...base, when: AT, ipAddress: IP, loginUrl: new URL('/login', siteUrl).toString() })
    case 'webhookEndpointDisabled':
      return mails.webhookEndpointDisabledNotice({ ...base, endpoint: 'hooks.example.com/identity', switch: { reason: 'failing', at: AT, since: new Date(AT.getTime() - 5 * 86_400_000) }, consoleUrl: new URL('/admin/webhooks', siteUrl).toString() })
  }
}
