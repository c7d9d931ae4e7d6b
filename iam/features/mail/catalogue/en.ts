/**
 * The mails in English: the reference catalogue. Every other language has exactly these keys with
 * the same named placeholders (tests/unit/mail-catalogue.test.ts); its type is this one's.
 * `{name}` placeholders are filled with values HTML-escaped in the HTML part (templates.ts).
 */
import { plural } from './plural'

export const en = {
  layout: {
    yourCode: 'Your code:',
    copyAddress: 'Or copy this address into your browser:',
    footer: 'This mail was sent to you about your {siteName} account.',
    dateTime: '{date}, {time} UTC',
    /** a moment in the reader's own time zone, {zone} its IANA name (Europe/Berlin): format.ts humanDate */
    dateTimeZone: '{date}, {time} ({zone})',
    /** the footer links of a branded mail (email.brand) */
    support: 'Support',
    terms: 'Terms',
    privacy: 'Privacy',
  },
  units: {
    minutes: plural({ one: '{count} minute', other: '{count} minutes' }),
    hours: plural({ one: '{count} hour', other: '{count} hours' }),
    days: plural({ one: '{count} day', other: '{count} days' }),
  },
  /** completes "... because {reason}" (iam/contract/anomaly-reasons.ts names the checks) */
  anomaly: {
    NEW_DEVICE: 'this browser is not the one this sign-in started on',
    IDLE_DEVICE: 'this sign-in was not used for a while',
    TOO_MANY_SESSIONS: 'your account is signed in on many devices',
    SESSION_VELOCITY: 'your account was signed in on several new devices within a few minutes',
    IP_DRIFT: 'you are connecting from a different network',
    DEVICE_REPUTATION: 'this network or device looks automated',
    FINGERPRINT_DRIFT: 'this browser or location looks different from before',
    other: 'this sign-in looks different from usual',
  },
  action: {
    changeEmail: 'changing your email address',
    /** an app's own reason, in the app's words, quoted */
    quoted: '“{label}”',
  },
  tokens: {
    revoked: plural({ one: '{count} API token was revoked as you asked.', other: '{count} API tokens were revoked as you asked.' }),
    active: plural({
      one: 'You have {count} active API token: {list}. It keeps working; if you do not recognise it, revoke it on your account page.',
      other: 'You have {count} active API tokens: {list}. They keep working; if you do not recognise them, revoke them on your account page.',
    }),
  },
  secondFactorChanges: {
    added: { headline: 'two-step sign-in was turned on', sentence: 'Two-step sign-in was turned on for your account on {date} from {ipAddress}.' },
    removed: { headline: 'two-step sign-in was turned off', sentence: 'Two-step sign-in was turned off for your account on {date} from {ipAddress}.' },
    recovery_code_used: { headline: 'a recovery code was used', sentence: 'A recovery code of your account was used on {date} from {ipAddress}.' },
    recovery_codes_regenerated: { headline: 'new recovery codes were made', sentence: 'New recovery codes were made for your account, and the old ones stopped working, on {date} from {ipAddress}.' },
    passkey_added: { headline: 'a passkey was added', sentence: 'A passkey was added to your account on {date} from {ipAddress}.' },
    passkey_removed: { headline: 'a passkey was removed', sentence: 'A passkey was removed from your account on {date} from {ipAddress}.' },
    password_set: { headline: 'a password was set', sentence: 'A password was set for your account on {date} from {ipAddress}.' },
    provider_unlinked: { headline: 'a linked account was removed', sentence: 'A sign-in provider account was unlinked from your account on {date} from {ipAddress}.' },
    codes_locked: { headline: 'code entry locked after wrong codes', sentence: 'Too many wrong two-step codes were entered for your account, so code entry is locked for a while; it was locked on {date} from {ipAddress}.' },
  },
  undoneItems: {
    totp: 'two-step sign-in with an authenticator app (and its recovery codes)',
    passkeys: plural({ one: '{count} passkey', other: '{count} passkeys' }),
    apiTokens: plural({ one: '{count} API token', other: '{count} API tokens' }),
    providerLinks: plural({ one: '{count} linked sign-in provider', other: '{count} linked sign-in providers' }),
    password: 'the password set since the change',
  },
  recoveryCodesLeft: plural({
    one: '{count} recovery code left. When few are left, make new recovery codes in your account.',
    other: '{count} recovery codes left. When few are left, make new recovery codes in your account.',
  }),
  /** Each mail's own words: what an administrator may override per language (PUT /admin/mail-templates/:kind/:locale). */
  mails: {
    adaptiveMfa: {
      subject: "{siteName}: confirm it's you",
      why: 'We asked a sign-in to your {siteName} account (from {ipAddress}) to confirm it is you, because {reason}.',
      howTo: 'To continue, enter the code on the page that asked for it, or open the link below and enter it there. The code expires in {duration}.',
      button: 'Confirm it is you',
      notYou: 'If this was not you, do not enter the code and change your password.',
    },
    customAction: {
      subject: '{siteName}: confirm {action}',
      intro: 'Someone signed in to your {siteName} account asked to confirm {action}.',
      note: 'Note: {note}',
      howTo: 'Open the link below and enter the code to confirm. The code expires in {duration}.',
      button: 'Confirm the action',
      notYou: 'If you did not ask for this, ignore this mail and change your password.',
    },
    emailChangeUndone: {
      subject: '{siteName}: your email change was undone',
      restored: 'The email address of your {siteName} account was put back to this address on {date} from {ipAddress}, and every session was signed out.',
      removed: 'Added since the change, and now removed: {items}.',
      nothingAdded: 'Nothing was added to your account since the change.',
      noPassword: 'Your account has no password now: set a new one with "Forgot password".',
      button: 'Set a new password',
      notYou: 'If you did not change the address yourself, change your password now.',
    },
    reauthenticateCode: {
      subject: '{siteName}: confirm it is you',
      intro: 'You were asked to confirm it is you before a change to how your {siteName} account signs in. Enter this code where it was asked for; it expires in {duration}.',
      notYou: 'If you did not ask for this, someone may be using one of your sessions: sign out everywhere from your account page.',
    },
    verifyEmail: {
      subject: '{siteName}: confirm your email address',
      intro: 'Please confirm that this address belongs to your {siteName} account.',
      howTo: 'Open the link below. It works once and expires in {duration}.',
      button: 'Confirm my email address',
      ignore: 'If you did not sign up or change your address, ignore this mail.',
    },
    emailChanged: {
      subject: '{siteName}: your email address was changed',
      changed: 'The email address of your {siteName} account was changed to {newEmail} on {date} from {ipAddress}.',
      undo: 'If you did not do this, open the link below within {duration}: it restores this address and signs every session out.',
      button: 'Undo the change',
      notYou: 'If you did not do this, contact support at once: someone else may control your account.',
    },
    orgInvitation: {
      subject: '{siteName}: you are invited to join {orgName}',
      invited: '{inviterName} invited you to join the organization {orgName} on {siteName}.',
      howTo: 'Open the link below and sign in with this address to accept. It works once and expires in {duration}.',
      button: 'Accept the invitation',
      ignore: 'If you do not know this organization, ignore this mail.',
    },
    emailSignIn: {
      subject: '{siteName}: your sign-in link',
      asked: 'Someone asked to sign in to your {siteName} account with this address.',
      howToLink: 'Open the link below in the same browser where you asked. It works once and expires in {duration}.',
      button: 'Sign in',
      howToCode: 'Or type this code on the sign-in page. It expires in {duration}.',
      ignore: 'If you did not ask for this, ignore this mail: nobody can sign in without it.',
    },
    passwordReset: {
      subject: '{siteName}: reset your password',
      asked: 'Someone asked to reset the password of your {siteName} account.',
      howTo: 'Open the link below to choose a new password. It works once and expires in {duration}.',
      button: 'Choose a new password',
      ignore: 'If you did not ask for this, ignore this mail: your password stays as it is.',
    },
    passwordChanged: {
      subject: '{siteName}: your password was changed',
      changedAllSignedOut: 'The password of your {siteName} account was changed on {date} from {ipAddress}. Every session was signed out.',
      changedOthersSignedOut: 'The password of your {siteName} account was changed on {date} from {ipAddress}. Every other session was signed out.',
      notYou: 'If you did not do this, reset your password now and contact support.',
    },
    passkeySignup: {
      subject: '{siteName}: your sign-up code',
      asked: 'Someone asked to create a {siteName} account with this address and a passkey.',
      howToCode: 'Type this code on the sign-up page. It expires in {duration}.',
      ignore: 'If you did not ask for this, ignore this mail: no account is created without this code.',
    },
    accountExists: {
      subject: '{siteName}: you already have an account',
      asked: 'Someone asked to create a {siteName} account with this address. This address already has an account, so no new one was made.',
      howToSignIn: 'Sign in with the way you set up. If you forgot your password, the sign-in page can send you a reset link.',
      button: 'Sign in',
      ignore: 'If you did not ask for this, ignore this mail: nothing has changed.',
    },
    noAccount: {
      subject: '{siteName}: no account uses this address',
      askedReset: 'Someone asked {siteName} for a password reset link for this address, but no account there uses it.',
      askedSignIn: 'Someone asked {siteName} for a sign-in mail for this address, but no account there uses it.',
      otherAddress: 'If it was you, you may have signed up with another address: ask again with that one. Or create an account with this address:',
      button: 'Create an account',
      ignore: 'If you did not ask for this, ignore this mail: no account was created and nothing has changed.',
    },
    useProvider: {
      subject: '{siteName}: how to sign in',
      asked: 'Someone asked to reset the password of your {siteName} account. Your account has no password: you sign in with {providers}.',
      anyProvider: 'your sign-in provider',
      button: 'Sign in',
      ignore: 'If you did not ask for this, ignore this mail.',
    },
    secondFactor: {
      subject: '{siteName}: {headline}',
      notYou: 'If you did not do this, change your password now and contact support.',
      lockedNotYou: 'Whoever entered them had your password or one of your signed-in sessions. If it was not you, change your password now and sign out everywhere.',
    },
    deleteAccount: {
      subject: '{siteName}: confirm the deletion of your account',
      asked: 'You asked to delete your {siteName} account. Nothing has changed yet.',
      howTo: 'Open the link below to confirm. It works once and expires in {duration}. Once confirmed, the account is disabled at once and every session is signed out; it is erased {undoWindow} later, and until then a link we mail you restores it.',
      button: 'Confirm the deletion',
      notYou: 'If you did not ask for this, ignore this mail and change your password: someone may be signed in to your account.',
    },
    accountDisabled: {
      subject: '{siteName}: your account is disabled and will be erased',
      disabled: 'Your {siteName} account is disabled: every session, API token and app access was ended. It will be erased on {date}.',
      undo: 'Changed your mind? Open the link below within {duration}: it restores the account, and you sign in again.',
      button: 'Restore my account',
    },
    restoreLink: {
      subject: '{siteName}: restore your account before it is erased',
      askedSignIn: 'Someone signed in with the password of your {siteName} account and asked for the link that restores it. Your account is scheduled for deletion: it will be erased on {date}.',
      askedReset: 'Someone asked to reset the password of your {siteName} account. Your account is scheduled for deletion: it will be erased on {date}.',
      askedEmailSignIn: 'Someone asked for a mail to sign in to your {siteName} account. Your account is scheduled for deletion: it will be erased on {date}.',
      howToSignIn: 'To keep it, open the link below within {duration}; then sign in again. Any restore link we mailed before no longer works.',
      howToReset: 'To keep it, open the link below within {duration}; then sign in again, and ask for a password reset if you still need one. Any restore link we mailed before no longer works.',
      button: 'Restore my account',
      ignore: 'If you want the account erased, ignore this mail.',
    },
    accountRestored: {
      subject: '{siteName}: your account was restored',
      restored: 'The deletion of your {siteName} account was cancelled on {date} from {ipAddress}. Your account will not be erased.',
      sessions: 'Sessions and API tokens ended by the deletion stay ended: sign in again, and create new API tokens if you need them.',
      button: 'Sign in',
    },
    webhookEndpointDisabled: {
      subject: '{siteName}: a webhook endpoint was switched off',
      failing: 'The webhook endpoint {endpoint} was switched off on {date}: every attempt to deliver to it has failed since {since}.',
      gone: 'The webhook endpoint {endpoint} was switched off on {date}: it answered 410 Gone, which says it takes no more deliveries.',
      waiting: 'The deliveries already queued for it wait, and events from now on are not queued for it. Once the receiver works again, switch the endpoint on in the console: the waiting deliveries are sent in order, and any that ran out of attempts can be sent again from its log.',
      button: 'Open the webhooks',
    },
  },
}

/** The type every language's catalogue has: a missing or extra key is a type error. */
export type MailCatalogue = typeof en
