/**
 * The mail kinds an administrator may override (contract/mail-templates.ts), in a module of its own
 * without zod: the admin console's page imports the list (pages/admin/mails.vue), and the pages'
 * bundle stays free of the route schemas.
 */

/**
 * The mails of the catalogue by kind (iam/features/mail/catalogue/en.ts `mails`; a unit test holds
 * the two equal, since the contract imports nothing from the features).
 */
export const MAIL_KINDS = [
  'adaptiveMfa',
  'customAction',
  'emailChangeUndone',
  'reauthenticateCode',
  'verifyEmail',
  'emailChanged',
  'orgInvitation',
  'passwordReset',
  'emailSignIn',
  'passwordChanged',
  'passkeySignup',
  'accountExists',
  'noAccount',
  'useProvider',
  'secondFactor',
  'deleteAccount',
  'accountDisabled',
  'restoreLink',
  'accountRestored',
  'webhookEndpointDisabled',
] as const
