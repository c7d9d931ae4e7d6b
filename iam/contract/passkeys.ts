/**
 * Passkeys (WebAuthn, docs/second-factors.md): registration and management for a
 * signed-in account, and passwordless sign-in that answers like POST /login. The verify bodies
 * carry the browser's `PublicKeyCredential` as @simplewebauthn/browser serialises it.
 */
import { z } from 'zod'
import { safeString } from './text'
import { defineRoutes, json, noBody } from './define'
import { botProof, code as emailedCode } from './inputs'
import { BOT_CHECK, CODES_LOCKED, errorFail, failure, FULL_AUTH, JSON_BODY_FIELDS, LIMITED, okData, REAUTH, responses, SSO_REQUIRED, SUSPENDED, tokensBody, VERIFIED_EMAIL, XSS } from './responses'

/** A registration response (attestation object, client data, COSE key) is well under 4 KiB. */
export const PASSKEY_JSON_LIMIT_BYTES = 4 * 1024

const b64url = (max: number) => z.string().min(1).max(max).regex(/^[A-Za-z0-9_-]+$/, 'Expected base64url')
const transports = z.array(z.enum(['ble', 'cable', 'hybrid', 'internal', 'nfc', 'smart-card', 'usb'])).max(7)
const credentialBase = {
  id: b64url(1366),
  rawId: b64url(1366),
  type: z.literal('public-key'),
  authenticatorAttachment: z.enum(['platform', 'cross-platform']).optional(),
  clientExtensionResults: z.record(z.string(), z.unknown()).default({}),
}

/** What `startRegistration()` of @simplewebauthn/browser returns. */
export const registrationCredential = z.object({
  ...credentialBase,
  response: z.object({
    clientDataJSON: b64url(1500),
    attestationObject: b64url(2500),
    authenticatorData: b64url(2000).optional(),
    transports: transports.optional(),
    publicKeyAlgorithm: z.number().int().optional(),
    publicKey: b64url(1500).optional(),
  }),
})

/** What `startAuthentication()` of @simplewebauthn/browser returns. */
export const authenticationCredential = z.object({
  ...credentialBase,
  response: z.object({
    clientDataJSON: b64url(1500),
    authenticatorData: b64url(1000),
    signature: b64url(600),
    userHandle: b64url(200).optional(),
  }),
})

export const passkeyName = safeString().trim().min(1, 'Name the passkey').max(64, 'At most 64 characters')

const passkeyView = z.object({
  id: z.number().int(),
  name: z.string(),
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
  backupEligible: z.boolean(),
  backedUp: z.boolean(),
  transports: z.array(z.string()),
})

/** Options as `startRegistration({ optionsJSON })` / `startAuthentication({ optionsJSON })` take them. */
const optionsBody = okData(z.object({ options: z.record(z.string(), z.unknown()) }))

const signupEmail = safeString().trim().min(1, 'Email is required').max(254)

/** Sign-up with a passkey: the device gate (canary_id, banned device) and the XSS ban of POST /signup */
const PASSKEY_SIGN_UP = responses(
  JSON_BODY_FIELDS,
  { 400: failure('Validation failed (`fields`) or no canary_id cookie', errorFail, 'validation_failed', 'device_cookie_missing') },
  { 403: failure('Banned device', errorFail, 'device_banned') },
  XSS,
)

/** Passwordless sign-in: like POST /login (device gate, XSS ban, login limiters). */
const PASSKEY_SIGN_IN = responses(
  JSON_BODY_FIELDS,
  { 400: failure('Validation failed (`fields`) or no canary_id cookie', errorFail, 'validation_failed', 'device_cookie_missing') },
  { 403: failure('Banned device', errorFail, 'device_banned') },
  XSS,
  LIMITED,
)

export const PASSKEY_ROUTES = defineRoutes({
  passkeysList: {
    method: 'GET',
    path: '/auth/passkeys',
    summary: "The account's passkeys",
    auth: 'full',
    limiters: [],
    request: noBody,
    responses: responses({ 200: { description: 'the passkeys, newest first', body: okData(z.object({ passkeys: z.array(passkeyView) })) } }, FULL_AUTH),
  },
  passkeyRegisterOptions: {
    method: 'POST',
    path: '/auth/passkeys/register/options',
    summary: 'Start registering a passkey: creation options with a single-use challenge bound to this account and device',
    auth: 'full',
    guards: ['verified-email', 'recent-sign-in'],
    limiters: [],
    request: noBody,
    responses: responses({ 200: { description: 'PublicKeyCredentialCreationOptionsJSON', body: optionsBody } }, FULL_AUTH, VERIFIED_EMAIL, REAUTH),
  },
  passkeyRegisterVerify: {
    method: 'POST',
    path: '/auth/passkeys/register/verify',
    summary: "Finish registering a passkey with the authenticator's answer",
    auth: 'full',
    guards: ['verified-email', 'recent-sign-in'],
    limiters: [],
    request: json(PASSKEY_JSON_LIMIT_BYTES),
    body: z.object({ credential: registrationCredential, name: passkeyName.optional() }),
    responses: responses(
      { 200: { description: 'registered', body: okData(z.object({ passkey: passkeyView })) } },
      JSON_BODY_FIELDS,
      FULL_AUTH,
      XSS,
      VERIFIED_EMAIL,
      REAUTH,
      {
        400: failure(
          'Validation failed, or the answer does not verify (challenge unknown, used, expired or another device\'s; origin, rpID or signature wrong)',
          errorFail,
          'validation_failed',
          'passkey_unverified',
        ),
        409: failure('This passkey is already registered', errorFail, 'passkey_already_registered'),
      },
    ),
  },
  passkeySignupStart: {
    method: 'POST',
    path: '/auth/passkey-signup/start',
    summary: 'Start a sign-up with a passkey and no password: mails a code to an unknown address, "you already have an account" to a known one',
    auth: 'none',
    limiters: ['signup', 'mailbox'],
    request: json(),
    body: z.object({
      email: signupEmail,
      name: safeString().trim().min(1, 'Name is required').max(100).optional(),
      termsConsent: z.literal('on', 'You must accept the terms'),
      botProof,
    }),
    responses: responses(
      BOT_CHECK,
      { 200: { description: 'One fixed body whether or not the address has an account', body: z.object({ ok: z.literal(true), message: z.string() }) } },
      PASSKEY_SIGN_UP,
      SSO_REQUIRED,
      LIMITED,
    ),
  },
  passkeySignupOptions: {
    method: 'POST',
    path: '/auth/passkey-signup/options',
    summary: 'The mailed code for the address: creation options bound to this device and a single-use ceremony id',
    auth: 'none',
    limiters: ['loginIp'],
    request: json(),
    body: z.object({ email: signupEmail, code: emailedCode }),
    responses: responses(
      { 200: { description: 'PublicKeyCredentialCreationOptionsJSON and the ceremony id POST /auth/passkey-signup/finish takes', body: okData(z.object({ options: z.record(z.string(), z.unknown()), ceremonyId: z.string() })) } },
      PASSKEY_SIGN_UP,
      { 401: failure('Wrong, expired or used code, or no code waits for the address (one body for all)', errorFail, 'code_invalid') },
      SSO_REQUIRED,
      LIMITED,
      CODES_LOCKED,
    ),
  },
  passkeySignupFinish: {
    method: 'POST',
    path: '/auth/passkey-signup/finish',
    summary: "Finish a sign-up with a passkey: the account is created (address confirmed, no password) with the authenticator's answer and signed in like a passkey sign-in",
    auth: 'none',
    limiters: ['loginIp'],
    request: json(PASSKEY_JSON_LIMIT_BYTES),
    body: z.object({ ceremonyId: b64url(64), credential: registrationCredential, rememberUser: z.enum(['on', 'off']).optional() }),
    responses: responses(
      { 201: { description: 'Account created and signed in: access token, session cookie set', body: tokensBody } },
      PASSKEY_SIGN_UP,
      {
        400: failure(
          'Validation failed; the ceremony is unknown, used, expired or another device\'s (`passkey_signup_ceremony_invalid`: ask for a new code); or the answer does not verify',
          errorFail,
          'validation_failed',
          'passkey_signup_ceremony_invalid',
          'passkey_unverified',
        ),
        409: failure('The address has an account now (`email_taken`: the person proved the mailbox, so it is said), or the passkey is registered already', errorFail, 'email_taken', 'passkey_already_registered'),
      },
      LIMITED,
    ),
  },
  passkeyDelete: {
    method: 'POST',
    path: '/auth/passkeys/delete',
    summary: 'Remove one of the account\'s passkeys',
    auth: 'full',
    guards: ['recent-sign-in'],
    limiters: [],
    request: json(),
    body: z.object({ id: z.number({ error: 'The id is required' }).int().positive() }),
    responses: responses(
      { 200: { description: 'removed', body: okData(z.object({ deleted: z.literal(true) })) } },
      JSON_BODY_FIELDS,
      FULL_AUTH,
      REAUTH,
      {
        400: failure('Validation failed', errorFail, 'validation_failed'),
        404: failure('No such passkey on this account', errorFail, 'passkey_not_found'),
        409: failure('The last passkey of an account with no password and no linked provider: its last way in', errorFail, 'last_way_in'),
      },
    ),
  },
  passkeyRename: {
    method: 'POST',
    path: '/auth/passkeys/rename',
    summary: 'Rename one of the account\'s passkeys',
    auth: 'full',
    limiters: [],
    request: json(),
    body: z.object({ id: z.number({ error: 'The id is required' }).int().positive(), name: passkeyName }),
    responses: responses(
      { 200: { description: 'renamed', body: okData(z.object({ passkey: passkeyView })) } },
      JSON_BODY_FIELDS,
      FULL_AUTH,
      XSS,
      { 400: failure('Validation failed (`fields`)', errorFail, 'validation_failed'), 404: failure('No such passkey on this account', errorFail, 'passkey_not_found') },
    ),
  },
  passkeyLoginOptions: {
    method: 'POST',
    path: '/auth/passkeys/login/options',
    summary: 'Start a passwordless sign-in: request options naming no account (discoverable credentials)',
    auth: 'none',
    // its own per-IP budget: the sign-in page asks on every load (autofill); only the verify step is a sign-in attempt
    limiters: ['passkeyOptions'],
    request: noBody,
    responses: responses(
      { 200: { description: 'PublicKeyCredentialRequestOptionsJSON, the same for every visitor', body: optionsBody } },
      { 400: failure('No canary_id cookie', errorFail, 'device_cookie_missing'), 403: failure('Banned device', errorFail, 'device_banned') },
      LIMITED,
    ),
  },
  passkeyLoginVerify: {
    method: 'POST',
    path: '/auth/passkeys/login/verify',
    summary: 'Finish a passwordless sign-in with the authenticator\'s assertion; answers like POST /login',
    auth: 'none',
    limiters: ['loginIp'],
    request: json(PASSKEY_JSON_LIMIT_BYTES),
    body: z.object({ credential: authenticationCredential, rememberUser: z.enum(['on', 'off']).optional() }),
    responses: responses(
      { 200: { description: 'Signed in: access token, session cookie set', body: tokensBody } },
      PASSKEY_SIGN_IN,
      {
        401: failure(
          'The assertion does not verify (unknown passkey, challenge unknown, used, expired or another device\'s, wrong origin or rpID, signature or sign counter)',
          errorFail,
          'invalid_credentials',
        ),
      },
      SUSPENDED,
    ),
  },
})
