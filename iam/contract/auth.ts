/** Authentication routes: sign-up, sign-in, refresh, sign-out, MFA (docs/accounts.md). */
import { z } from 'zod'
import { safeString } from './text'
import { OAUTH_JSON_LIMIT_BYTES, cookieOnly, defineRoutes, json, noBody } from './define'
import { botProof, code as emailedCode, linkQuery } from './inputs'
import { secondFactorLoginBody } from './second-factor'
import { invitationToken } from './organizations'
import { BAD_LINK, BOT_CHECK, CODES_LOCKED, COOKIE_ONLY, JSON_BODY_FIELDS, LIMITED, SESSION_ENDED_CODES, SSO_REQUIRED, SUSPENDED, XSS, errorFail, failure, mfaPendingBody, okData, okPlain, passwordWarnings, plainError, reloginBody, responses, tokensBody } from './responses'

const email = safeString().trim().min(1, 'Email is required').max(254)
const password = safeString().min(1, 'Password is required').max(1024)
const rememberUser = z.enum(['on', 'off']).optional()

/**
 * POST /login's answer to the right password of an account scheduled for deletion: when it is
 * erased, and the single-use proof POST /auth/delete-account/restore-link takes (contract/account-deletion.ts). No session.
 */
const deletionPendingBody = errorFail.extend({
  deletionPending: z.literal(true),
  dueAt: z.iso.datetime(),
  restoreProof: z.string(),
  restoreProofExpiresAt: z.iso.datetime(),
})

/** Signup, login, OAuth: the JSON body rules, requireSignInDevice (canary_id cookie, banned device) and XSS */
const SIGN_IN = responses(
  JSON_BODY_FIELDS,
  { 400: failure('No canary_id cookie', errorFail, 'device_cookie_missing') },
  { 403: failure('Banned device', errorFail, 'device_banned') },
  XSS,
)

export const AUTH_ROUTES = defineRoutes({
  signup: {
    method: 'POST',
    path: '/signup',
    summary: 'Create an account and sign in',
    auth: 'none',
    limiters: ['signup', 'mailbox'],
    request: json(),
    body: z.object({
      email,
      password,
      confirmedPassword: safeString().min(1, 'Please confirm the password').max(1024),
      name: safeString().trim().min(1, 'Name is required').max(100),
      termsConsent: z.literal('on', 'You must accept the terms'),
      rememberUser,
      botProof,
      /**
       * the token of an organization invitation the person followed here: when it names a pending
       * invitation of this very address, the address counts as confirmed (no confirmation mail);
       * any other token changes nothing, and the answer never tells which it was (docs/accounts.md)
       */
      invitationToken: invitationToken.optional(),
    }),
    responses: responses(
      BOT_CHECK,
      { 201: { description: 'Account created and signed in: access token, session cookie set; `warnings` when the breach check was skipped', body: tokensBody.extend(passwordWarnings) } },
      SIGN_IN,
      {
        400: failure('Validation failed, the passwords do not match, or a rejected email or password (`fields`)', errorFail, 'validation_failed', 'passwords_mismatch', 'password_rejected'),
        409: failure('Email already registered', errorFail, 'email_taken'),
        503: failure('The breached-password check is unavailable', errorFail, 'breach_check_unavailable'),
      },
      SSO_REQUIRED,
      LIMITED,
    ),
  },
  login: {
    method: 'POST',
    path: '/login',
    summary: 'Sign in with email and password',
    auth: 'none',
    limiters: ['loginIp', 'loginAccount', 'loginAccountDelay'],
    request: json(),
    body: z.object({ email, password, rememberUser, botProof }),
    responses: responses(
      BOT_CHECK,
      { 200: { description: 'Signed in: access token, session cookie set', body: tokensBody } },
      { 200: { description: 'Right password, account with a second factor: a challenge for POST /auth/second-factor, no tokens', body: secondFactorLoginBody } },
      SIGN_IN,
      {
        400: failure('Validation failed (`fields`)', errorFail, 'validation_failed'),
        401: failure('Invalid email or password (one body for both); also an account whose deletion is due', errorFail, 'invalid_credentials'),
      },
      SUSPENDED,
      {
        403: failure(
          'Right password, account scheduled for deletion (`deletionPending: true`): erased at `dueAt` unless restored; `restoreProof` asks POST /auth/delete-account/restore-link for the restore link, once, until `restoreProofExpiresAt`. No session',
          deletionPendingBody,
          'deletion_pending',
        ),
      },
      SSO_REQUIRED,
      LIMITED,
    ),
  },
  oauthLogin: {
    method: 'POST',
    path: '/auth/OAuth/:providerName',
    summary: 'Sign in with a provider profile the gateway obtained',
    auth: 'none',
    // only the gateway's own code exchange vouches for a profile: a person's BFF call or forwarded
    // provider traffic signed by the same gateway must not sign anyone in (docs/architecture.md)
    purposes: ['oauth-callback'],
    limiters: ['oauth'],
    // A provider profile may carry fields we never read with newlines (OIDC address.formatted): only
    // unstorable text is refused here; the fields we read are checked in full by their schema.
    request: json(OAUTH_JSON_LIMIT_BYTES, { text: 'storable' }),
    params: z.object({ providerName: z.string().min(1) }),
    // the provider's profile as the gateway received it: our fields are picked per provider
    // (config `providers`) and checked with inputs.ts providerProfile
    body: z.record(z.string(), z.unknown()),
    responses: responses(
      { 201: { description: 'Signed in: access token, session cookie set', body: tokensBody } },
      { 200: { description: 'An account with a second factor: a challenge for POST /auth/second-factor, no tokens', body: secondFactorLoginBody } },
      SIGN_IN,
      {
        400: failure('Validation failed, or an invalid provider profile (`fields`)', errorFail, 'validation_failed', 'oauth_profile_invalid'),
        403: failure('Account suspended (`banned: true`)', errorFail, 'account_banned'),
        404: failure('No provider of that name (the router\'s 404)', plainError, 'not_found'),
        409: failure('Email already registered', errorFail, 'email_taken'),
      },
      LIMITED,
    ),
  },
  botChallenge: {
    method: 'GET',
    path: '/auth/bot-challenge',
    summary: 'The browser check before sign-up, a reset, an email sign-in or a password sign-in after failures: a proof-of-work challenge, or a widget site key',
    auth: 'none',
    // one HMAC and nothing stored: no limiter (a solution is what costs, and it is spent once)
    limiters: [],
    request: noBody,
    responses: responses(
      {
        200: {
          description:
            'A challenge (`provider: "pow"`, ALTCHA v1: algorithm, challenge, maxnumber, salt, signature), or the site key of the widget (`provider: "turnstile"`), or `enabled: false` when the check is off',
          body: okData(
            z.union([
              z.object({ enabled: z.literal(false) }),
              z.object({
                enabled: z.literal(true),
                provider: z.literal('pow'),
                challenge: z.object({ algorithm: z.string(), challenge: z.string(), maxnumber: z.number().optional(), salt: z.string(), signature: z.string() }),
              }),
              z.object({ enabled: z.literal(true), provider: z.literal('turnstile'), siteKey: z.string() }),
            ]),
          ),
        },
      },
    ),
  },
  emailSignInMethods: {
    method: 'GET',
    path: '/auth/email-sign-in',
    summary: 'Which ways of signing in by email are offered (config `signIn`)',
    auth: 'none',
    limiters: [],
    request: noBody,
    responses: responses({ 200: { description: 'The methods on: an emailed link, an emailed code', body: okData(z.object({ link: z.boolean(), code: z.boolean() })) } }),
  },
  emailSignIn: {
    method: 'POST',
    path: '/auth/email-sign-in',
    summary: 'Mail a sign-in link (bound to this browser) or a sign-in code',
    auth: 'none',
    limiters: ['emailSignIn', 'mailbox'],
    request: json(),
    body: z.object({ email, method: z.enum(['link', 'code'], { error: 'method: link or code' }), rememberUser, botProof }),
    responses: responses(
      BOT_CHECK,
      { 200: { description: 'One fixed body whether or not the address has an account', body: z.object({ ok: z.literal(true), message: z.string() }) } },
      SIGN_IN,
      {
        400: failure('Validation failed (`fields`)', errorFail, 'validation_failed'),
        403: failure('The method asked for is not offered here (config `signIn`)', errorFail, 'email_sign_in_disabled'),
      },
      SSO_REQUIRED,
      LIMITED,
    ),
  },
  emailSignInLink: {
    method: 'POST',
    path: '/auth/email-sign-in/link',
    summary: 'Sign in with the emailed link, in the browser that asked for it',
    auth: 'none',
    limiters: ['loginIp'],
    request: noBody,
    query: linkQuery,
    responses: responses(
      { 200: { description: 'Signed in: access token, session cookie set', body: tokensBody } },
      { 200: { description: 'An account with a second factor: a challenge for POST /auth/second-factor, no tokens', body: secondFactorLoginBody } },
      BAD_LINK,
      { 400: failure('No canary_id cookie', errorFail, 'device_cookie_missing') },
      { 403: failure('Banned device', errorFail, 'device_banned') },
      SUSPENDED,
      {
        403: failure(
          'The link was opened in another browser than the one that asked: it is not used; open it there, or type the mailed code there',
          errorFail,
          'email_sign_in_other_device',
        ),
      },
      SSO_REQUIRED,
      LIMITED,
    ),
  },
  emailSignInCode: {
    method: 'POST',
    path: '/auth/email-sign-in/code',
    summary: 'Sign in with the emailed code and the address it went to, on any device',
    auth: 'none',
    limiters: ['loginIp'],
    request: json(),
    body: z.object({ email, code: emailedCode }),
    responses: responses(
      { 200: { description: 'Signed in: access token, session cookie set', body: tokensBody } },
      { 200: { description: 'An account with a second factor: a challenge for POST /auth/second-factor, no tokens', body: secondFactorLoginBody } },
      SIGN_IN,
      {
        400: failure('Validation failed (`fields`)', errorFail, 'validation_failed'),
        401: failure('Wrong, expired or used code, or no sign-in mail waits for the address (one body for all)', errorFail, 'code_invalid'),
      },
      SUSPENDED,
      SSO_REQUIRED,
      LIMITED,
      CODES_LOCKED,
    ),
  },
  refreshSession: {
    method: 'POST',
    path: '/auth/user/refresh-session',
    summary: 'Rotate the session: a new token pair for the refresh token',
    auth: 'session',
    limiters: ['refresh'],
    request: cookieOnly,
    responses: responses(
      { 201: { description: 'Rotated: new access token, new session cookie', body: tokensBody } },
      COOKIE_ONLY,
      {
        202: failure('An anomaly of this session waits for the emailed code', mfaPendingBody, 'mfa_required'),
        401: failure('Invalid, expired, reused or too old session: re-login is required', z.union([errorFail, reloginBody]), ...SESSION_ENDED_CODES),
        403: failure('Banned device', errorFail, 'device_banned'),
        500: failure('The verification email of an anomaly could not be sent', errorFail, 'mail_failed'),
      },
      LIMITED,
    ),
  },
  logout: {
    method: 'POST',
    path: '/auth/logout',
    summary: 'End this session',
    auth: 'bearer+session',
    limiters: [],
    request: cookieOnly,
    responses: responses(
      { 200: { description: 'Session revoked (or already gone) and the cookie cleared', body: okPlain } },
      COOKIE_ONLY,
      { 401: failure('No Bearer token', errorFail, 'access_token_missing') },
    ),
  },
})
