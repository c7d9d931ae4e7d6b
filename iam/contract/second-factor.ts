/** TOTP, recovery codes, passkeys and the second-factor step at login (docs/second-factors.md). */
import { z } from 'zod'
import { ACCOUNT_ACTION_ROUTES } from './account-actions'
import { defineRoutes, json, noBody } from './define'
import { CUSTOM_REASON_PATTERN } from './inputs'
import { bannedBody, CODES_LOCKED, errorFail, failure, FULL_AUTH, JSON_BODY_FIELDS, LIMITED, LINK_CODES, okData, REAUTH, responses, suspendedBody, tokensBody, VERIFIED_EMAIL, XSS } from './responses'

/** A 6-digit TOTP code or a recovery code (`xxxx-xxxx-xxxx-xxxx`, case and separators free). */
export const secondFactorCode = z
  .string({ error: 'The code is required' })
  .trim()
  .min(6, 'Enter the 6-digit code or a recovery code')
  .max(32, 'Enter the 6-digit code or a recovery code')
  .regex(/^[A-Za-z0-9 -]+$/, 'Enter the 6-digit code or a recovery code')

/** 32 random bytes in base64url, as POST /login issued it. */
export const challengeToken = z.string({ error: 'The challenge is required' }).regex(/^[A-Za-z0-9_-]{43}$/, 'Invalid challenge')

/** The methods the step offers; passkeys join this list when they land. */
export const secondFactorMethods = z.array(z.enum(['totp', 'recovery_code']))

/** What POST /login (and POST /auth/OAuth/:providerName) answer, instead of tokens, for an account with a second factor. */
export const secondFactorLoginBody = z.object({
  ok: z.literal(true),
  date: z.iso.datetime(),
  secondFactor: z.object({ challenge: challengeToken, methods: secondFactorMethods }),
})

/** A signed-in JSON route that takes a second-factor code: XSS bans and the codes limiter apply. */
const CODE_ROUTE = responses(JSON_BODY_FIELDS, FULL_AUTH, XSS, { 400: failure('Validation failed (`fields`) or wrong code', errorFail, 'validation_failed', 'code_invalid') }, LIMITED)

/** A custom MFA flow (or the email change) proven with a second factor (features/mfa/flow-proof.ts) */
const FLOW_PROOF = responses(
  CODE_ROUTE,
  CODES_LOCKED,
  { 400: failure('No flow of this session is pending for the reason, or the link is no longer usable', errorFail, 'flow_not_started', ...LINK_CODES) },
  { 401: failure('Wrong code, or the flow ran out of attempts; or the session is gone', errorFail, 'code_invalid', 'code_attempts_exhausted', 'relogin_required') },
)

export const SECOND_FACTOR_ROUTES = defineRoutes({
  totpStatus: {
    method: 'GET',
    path: '/auth/totp',
    summary: 'Whether TOTP is enabled and how many recovery codes are left',
    auth: 'full',
    limiters: [],
    request: noBody,
    responses: responses(
      { 200: { description: 'The account state', body: okData(z.object({ enabled: z.boolean(), recoveryCodesLeft: z.number().int() })) } },
      FULL_AUTH,
    ),
  },
  totpSetup: {
    method: 'POST',
    path: '/auth/totp/setup',
    summary: 'Start TOTP enrolment: a new secret, pending until confirmed',
    auth: 'full',
    guards: ['verified-email', 'recent-sign-in'],
    limiters: [],
    request: noBody,
    responses: responses(
      { 200: { description: 'The secret to show once (text and QR code)', body: okData(z.object({ secret: z.string(), otpauthUrl: z.string() })) } },
      FULL_AUTH,
      VERIFIED_EMAIL,
      REAUTH,
      { 401: failure('The account is gone', errorFail, 'relogin_required') },
      { 409: failure('TOTP is already enabled', errorFail, 'totp_already_enabled') },
    ),
  },
  totpEnable: {
    method: 'POST',
    path: '/auth/totp/enable',
    summary: 'Confirm the pending secret with a code; answers the recovery codes once',
    auth: 'full',
    guards: ['verified-email', 'recent-sign-in'],
    limiters: ['codes'],
    request: json(),
    body: z.object({ code: z.string({ error: 'The code is required' }).trim().regex(/^\d{6}$/, 'The code has 6 digits') }),
    responses: responses(
      { 200: { description: '10 recovery codes, shown once', body: okData(z.object({ recoveryCodes: z.array(z.string()) })) } },
      CODE_ROUTE,
      VERIFIED_EMAIL,
      REAUTH,
      { 409: failure('No pending setup', errorFail, 'totp_setup_not_started') },
    ),
  },
  totpDisable: {
    method: 'POST',
    path: '/auth/totp/disable',
    summary: 'Turn TOTP off with a TOTP or recovery code',
    auth: 'full',
    guards: ['recent-sign-in'],
    limiters: ['codes'],
    request: json(),
    body: z.object({ code: secondFactorCode }),
    responses: responses(
      { 200: { description: 'Removed, with every recovery code', body: okData(z.object({ enabled: z.literal(false) })) } },
      CODE_ROUTE,
      CODES_LOCKED,
      REAUTH,
      { 409: failure('TOTP is not enabled', errorFail, 'totp_not_enabled') },
    ),
  },
  totpRecoveryCodes: {
    method: 'POST',
    path: '/auth/totp/recovery-codes',
    summary: 'Replace every recovery code by 10 new ones; answers them once',
    auth: 'full',
    guards: ['recent-sign-in'],
    limiters: [],
    request: noBody,
    responses: responses(
      { 200: { description: '10 new recovery codes, shown once; the old ones no longer work', body: okData(z.object({ recoveryCodes: z.array(z.string()) })) } },
      FULL_AUTH,
      REAUTH,
      { 409: failure('TOTP is not enabled', errorFail, 'totp_not_enabled') },
    ),
  },
  secondFactor: {
    method: 'POST',
    path: '/auth/second-factor',
    summary: 'Finish a sign-in with the challenge from POST /login and a TOTP or recovery code',
    auth: 'none',
    limiters: ['loginIp'],
    request: json(),
    body: z.object({ challenge: challengeToken, code: secondFactorCode }),
    responses: responses(
      { 200: { description: 'Signed in: access token, session cookie set (as POST /login)', body: tokensBody } },
      JSON_BODY_FIELDS,
      {
        400: failure('Validation failed (`fields`) or no canary_id cookie', errorFail, 'validation_failed', 'device_cookie_missing'),
        401: failure(
          'Wrong code; or `restart: true` when the challenge is unknown, expired, used, out of attempts or another device\'s',
          errorFail.extend({ restart: z.literal(true).optional() }),
          'code_invalid',
          'sign_in_expired',
        ),
        403: failure('Banned device, or a suspended account (`until`, `reason`: see POST /login)', z.union([errorFail, bannedBody, suspendedBody]), 'device_banned', 'account_banned'),
      },
      XSS,
      LIMITED,
      CODES_LOCKED,
    ),
  },
  // With a second factor, a custom MFA flow (and the email change) may be proven with it instead
  // of the emailed link and code; the flow is the one this session started with POST /custom/mfa/:reason.
  verifyCustomMfaSecondFactor: {
    method: 'POST',
    path: '/auth/verify-custom-mfa/second-factor',
    summary: 'Complete a custom MFA flow this session started with a TOTP or recovery code instead of the emailed code',
    auth: 'full',
    limiters: ['codes'],
    request: json(),
    body: z.object({ reason: z.string({ error: 'The reason is required' }).regex(CUSTOM_REASON_PATTERN, 'Invalid reason'), code: secondFactorCode }),
    responses: responses(
      { 200: { description: 'Action confirmed: a new token pair for this session', body: tokensBody } },
      FLOW_PROOF,
    ),
  },
  updateEmailSecondFactor: {
    method: 'POST',
    path: '/update/email/second-factor',
    summary: 'Change the account email (after POST /custom/mfa/change_email) with a TOTP or recovery code instead of the emailed code',
    auth: 'full',
    guards: ['not-impersonated'],
    limiters: ['codes', 'mailbox'],
    request: json(),
    body: z.object({
      newEmail: ACCOUNT_ACTION_ROUTES.updateEmail.body.shape.newEmail,
      code: secondFactorCode,
    }),
    responses: responses(
      { 200: { description: 'Updated: new tokens for this session, every other session revoked', body: tokensBody } },
      FLOW_PROOF,
      { 400: failure('Address in use or invalid, or no change_email flow pending', errorFail, 'email_invalid', 'email_unchanged', 'email_taken') },
    ),
  },
})
