/** TOTP, recovery codes, passkeys and the second-factor step at login (DESIGN section 7, issue 15). */
import { z } from 'zod'
import { defineRoutes, json, noBody } from './define'

/** A 6-digit TOTP code or a recovery code (`xxxx-xxxx-xxxx-xxxx`, case and separators free). */
export const secondFactorCode = z
  .string({ error: 'The code is required' })
  .trim()
  .min(6, 'Enter the 6-digit code or a recovery code')
  .max(32, 'Enter the 6-digit code or a recovery code')
  .regex(/^[A-Za-z0-9 -]+$/, 'Enter the 6-digit code or a recovery code')

/** 32 random bytes in base64url, as POST /login issued it. */
export const challengeToken = z.string({ error: 'The challenge is required' }).regex(/^[A-Za-z0-9_-]{43}$/, 'Invalid challenge')

export const secondFactorMethods = z.array(z.enum(['totp', 'recovery_code']))

const date = z.string()
const fail = z.object({ ok: z.literal(false), date, error: z.string(), fields: z.record(z.string(), z.string()).optional() })
const ok = <T extends z.ZodType>(data: T) => z.object({ ok: z.literal(true), date, data })
const notSignedIn = { description: 'not signed in', body: fail }
const tooMany = { description: 'too many attempts from this address', body: z.object({ error: z.string(), retry: z.union([z.number(), z.literal('permanent')]) }) }
const tokens = z.object({ ok: z.literal(true), date, accessToken: z.string(), accessIat: z.number(), expiresInMs: z.number() })

/** What POST /login answers, instead of tokens, for an account with a second factor. */
export const secondFactorLoginBody = z.object({
  ok: z.literal(true),
  date,
  secondFactor: z.object({ challenge: challengeToken, methods: secondFactorMethods }),
})

export const SECOND_FACTOR_ROUTES = defineRoutes({
  totpStatus: {
    method: 'GET',
    path: '/auth/totp',
    summary: 'Whether TOTP is enabled and how many recovery codes are left',
    auth: 'full',
    limiters: [],
    request: noBody,
    responses: {
      200: { description: 'the account state', body: ok(z.object({ enabled: z.boolean(), recoveryCodesLeft: z.number().int() })) },
      401: notSignedIn,
    },
  },
  totpSetup: {
    method: 'POST',
    path: '/auth/totp/setup',
    summary: 'Start TOTP enrolment: a new secret, pending until confirmed',
    auth: 'full',
    limiters: [],
    request: noBody,
    responses: {
      200: { description: 'the secret to show once (text and QR code)', body: ok(z.object({ secret: z.string(), otpauthUrl: z.string() })) },
      401: notSignedIn,
      409: { description: 'TOTP is already enabled', body: fail },
    },
  },
  totpEnable: {
    method: 'POST',
    path: '/auth/totp/enable',
    summary: 'Confirm the pending secret with a code; answers the recovery codes once',
    auth: 'full',
    limiters: [],
    request: json(),
    body: z.object({ code: z.string({ error: 'The code is required' }).trim().regex(/^\d{6}$/, 'The code has 6 digits') }),
    responses: {
      200: { description: '10 recovery codes, shown once', body: ok(z.object({ recoveryCodes: z.array(z.string()) })) },
      400: { description: 'validation failed or wrong code', body: fail },
      401: notSignedIn,
      409: { description: 'no pending setup', body: fail },
      429: tooMany,
    },
  },
  totpDisable: {
    method: 'POST',
    path: '/auth/totp/disable',
    summary: 'Turn TOTP off with a TOTP or recovery code',
    auth: 'full',
    limiters: [],
    request: json(),
    body: z.object({ code: secondFactorCode }),
    responses: {
      200: { description: 'removed, with every recovery code', body: ok(z.object({ enabled: z.literal(false) })) },
      400: { description: 'validation failed or wrong code', body: fail },
      401: notSignedIn,
      409: { description: 'TOTP is not enabled', body: fail },
      429: tooMany,
    },
  },
  secondFactor: {
    method: 'POST',
    path: '/auth/second-factor',
    summary: 'Finish a sign-in with the challenge from POST /login and a TOTP or recovery code',
    auth: 'none',
    limiters: [],
    request: json(),
    body: z.object({ challenge: challengeToken, code: secondFactorCode }),
    responses: {
      200: { description: 'signed in: tokens and the session cookie, like POST /login', body: tokens },
      400: { description: 'validation failed or no canary_id cookie', body: fail },
      401: { description: 'wrong code, or the challenge is unknown, expired, used, out of attempts or another device\'s (`restart: true`)', body: fail },
      403: { description: 'banned account or device', body: z.object({ banned: z.literal(true) }).loose() },
      429: tooMany,
    },
  },
  // With a second factor, a custom MFA flow (and the email change) may be proven with it instead
  // of the emailed link and code; the flow is the one this session started with POST /custom/mfa/:reason.
  verifyCustomMfaSecondFactor: {
    method: 'POST',
    path: '/auth/verify-custom-mfa/second-factor',
    summary: 'Complete a custom MFA flow this session started with a TOTP or recovery code instead of the emailed code',
    auth: 'full',
    limiters: [],
    request: json(),
    body: z.object({ reason: z.string({ error: 'The reason is required' }).regex(/^[A-Z0-9_]{3,64}$/, 'Invalid reason'), code: secondFactorCode }),
    responses: {
      200: { description: 'action confirmed: a new token pair for this session', body: tokens },
      400: { description: 'validation failed, or no flow of this session is pending for the reason', body: fail },
      401: { description: 'wrong code, or the flow ran out of attempts', body: fail },
      429: tooMany,
    },
  },
  updateEmailSecondFactor: {
    method: 'POST',
    path: '/update/email/second-factor',
    summary: 'Change the account email (after POST /custom/mfa/change_email) with a TOTP or recovery code instead of the emailed code',
    auth: 'full',
    limiters: [],
    request: json(),
    body: z.object({
      newEmail: z.string({ error: 'The new email is required' }).trim().min(3, 'The new email is required').max(254),
      code: secondFactorCode,
    }),
    responses: {
      200: { description: 'updated: new tokens for this session, every other session revoked', body: tokens },
      400: { description: 'validation failed, address in use, or no change_email flow pending', body: fail },
      401: { description: 'wrong code, or the flow ran out of attempts', body: fail },
      429: tooMany,
    },
  },
})
