/** Sessions, password change and the audit view (docs/accounts.md, docs/second-factors.md). */
import { z } from 'zod'
import { safeString } from './text'
import { SUPPORTED_LOCALES } from './locales'
import { TIME_ZONE_MAX } from './time-zones'
import { defineRoutes, json, noBody } from './define'
import type { ErrorCode } from './error-codes'
import { CODES_LOCKED, FULL_AUTH, JSON_BODY_FIELDS, LIMITED, REAUTH, VERIFIED_EMAIL, XSS, errorFail, failure, okData, passwordWarnings, responses, tokensBody, type Responses } from './responses'

/** A validation or business refusal of these routes (`error`, `fields` for the field at fault) */
const refused = <const C extends readonly ErrorCode[]>(description: string, ...codes: C) => ({ 400: failure(description, errorFail, 'validation_failed', ...codes) }) satisfies Responses
/** Full authentication read the account a moment ago: gone since, the session means nothing now */
const ACCOUNT_GONE = { 401: failure('The account is gone: re-login is required', errorFail, 'relogin_required') } satisfies Responses

/** A live session (refresh-token family) as its owner sees it. */
export const sessionView = z.object({
  id: z.string().describe('opaque session id'),
  current: z.boolean().describe('the session making this request'),
  createdAt: z.string(),
  lastSeenAt: z.string(),
  ipAddress: z.string().nullable(),
  browser: z.string().nullable(),
  os: z.string().nullable(),
  country: z.string().optional(),
})

/** One audit-log entry as its owner sees it: never secrets, never another user's. */
export const securityEventView = z.object({
  id: z.number(),
  type: z.string(),
  createdAt: z.string(),
  ipAddress: z.string().nullable(),
  browser: z.string().optional(),
  details: z.record(z.string(), z.unknown()),
})

/** `<created_at ms>.<id>`: the position after the last entry of a page (keyset pagination). */
export const SECURITY_EVENTS_CURSOR = /^\d{1,15}\.\d{1,12}$/
export const SECURITY_EVENTS_MAX_LIMIT = 100
export const SECURITY_EVENTS_DEFAULT_LIMIT = 20

/**
 * `{ password }`, `{ code }` (TOTP, recovery or mailed code), or `{}` to have a code mailed
 * (accounts with neither); both at once is a 400 of the route. No refinement here: the gateway
 * extends these schemas with its own fields.
 */
export const reauthenticateBody = z
  .strictObject({
    password: safeString({ error: 'Enter your password' }).min(1, 'Enter your password').max(1024).optional(),
    code: safeString({ error: 'Enter the code' })
      .trim()
      .min(6, 'Enter the 6-digit code, a recovery code or the mailed code')
      .max(32, 'Enter the 6-digit code, a recovery code or the mailed code')
      .regex(/^[A-Za-z0-9 -]+$/, 'Enter the 6-digit code, a recovery code or the mailed code')
      .optional(),
  })

export const revokeSessionBody = z.object({
  id: safeString({ error: 'The session id is required' }).min(1, 'The session id is required').max(100, 'Unknown session'),
})

export const changePasswordBody = z.object({
  currentPassword: safeString({ error: 'The current password is required' }).min(1, 'The current password is required').max(1024),
  password: safeString({ error: 'Password is required' }).min(1, 'Password is required').max(1024),
  confirmedPassword: safeString({ error: 'Confirm the password' }).min(1, 'Confirm the password').max(1024),
})

/** A first password: no current one to prove (the account has none), so no `currentPassword`. */
export const setPasswordBody = z.object({
  password: changePasswordBody.shape.password,
  confirmedPassword: changePasswordBody.shape.confirmedPassword,
})

/** The provider to unlink, by its configured name as GET /auth/sign-in-methods lists it. */
export const unlinkProviderBody = z.object({
  provider: safeString({ error: 'Name the provider' }).trim().min(1, 'Name the provider').max(64, 'Unknown provider'),
})

export const securityEventsQuery = z.object({
  // a string as it arrives (1..100, no sign, no leading zero); the route turns it into a number
  limit: z.string().regex(/^(?:[1-9]\d?|100)$/, `limit is a number from 1 to ${SECURITY_EVENTS_MAX_LIMIT}`).optional(),
  before: z.string().regex(SECURITY_EVENTS_CURSOR, 'before is the nextBefore of a previous page').optional(),
})

/** How the account can sign in: what the account page offers to change. */
export const signInMethodsView = z.object({
  password: z.boolean().describe('the account has a password (false: provider sign-in only, or cleared)'),
  totp: z.boolean().describe('two-step sign-in is on'),
  passkeys: z.number().int().describe('how many passkeys the account holds'),
  providers: z.array(z.string()).describe('linked OAuth providers by configured name'),
  linked: z
    .array(z.object({ provider: z.string(), email: z.string().nullable().describe('the address the provider account gave'), linkedAt: z.string() }))
    .describe('each linked provider account, by provider, oldest first'),
})

/**
 * The name people see on the account page and in the header (free text like signup's name), and
 * the language the account's mails are written in (iam/contract/locales.ts; null: not chosen, the
 * request's language then). The name may be left out only when the language is sent: a body with
 * neither is the old `Name is required`.
 */
export const profileBody = z
  .object({
    name: safeString().trim().min(1, 'Name is required').max(100, 'At most 100 characters').optional(),
    locale: z
      .string()
      .max(35, 'At most 35 characters')
      .nullable()
      .optional()
      .describe(`one of ${SUPPORTED_LOCALES.join(', ')}; null forgets the choice (mails follow the browser's language)`),
    timeZone: z
      .string()
      .max(TIME_ZONE_MAX, `At most ${TIME_ZONE_MAX} characters`)
      .nullable()
      .optional()
      .describe("an IANA time zone name the service's Intl knows (Europe/Berlin, UTC), the zone the account's mails name their moments in; it is kept over the browser's zone at later sign-ins. null forgets the choice (mails say UTC until a sign-in names the browser's zone)"),
  })
  .refine((body) => body.name !== undefined || body.locale !== undefined || body.timeZone !== undefined, { message: 'Name is required', path: ['name'] })

export const ACCOUNT_SECURITY_ROUTES = defineRoutes({
  updateProfile: {
    method: 'POST',
    path: '/auth/profile',
    summary: "Change the account's name or language",
    auth: 'full',
    limiters: [],
    request: json(),
    body: profileBody,
    responses: responses(
      {
        200: {
          description: 'Changed: the name as stored (trimmed), the language (null: not chosen) and the time zone (its runtime spelling; null: none known, mails say UTC)',
          body: okData(z.object({ name: z.string(), locale: z.enum(SUPPORTED_LOCALES).nullable(), timeZone: z.string().nullable() })),
        },
      },
      refused(
        'Validation failed (`fields.name`), a language the service does not write in (`fields.locale`), or a time zone it does not know (`fields.timeZone`); nothing is changed',
        'locale_unsupported',
        'time_zone_unsupported',
      ),
      FULL_AUTH,
      JSON_BODY_FIELDS,
      XSS,
    ),
  },
  signInMethods: {
    method: 'GET',
    path: '/auth/sign-in-methods',
    summary: 'How the account can sign in: password, two-step sign-in, passkeys, linked providers',
    auth: 'full',
    limiters: [],
    request: noBody,
    responses: responses({ 200: { description: 'The account’s sign-in methods', body: okData(signInMethodsView) } }, FULL_AUTH, ACCOUNT_GONE),
  },
  listSessions: {
    method: 'GET',
    path: '/auth/sessions',
    summary: "The user's live sessions, newest first",
    auth: 'full',
    limiters: [],
    request: noBody,
    responses: responses({ 200: { description: 'Live sessions (not revoked, not expired)', body: okData(z.object({ sessions: z.array(sessionView) })) } }, FULL_AUTH),
  },
  revokeSession: {
    method: 'POST',
    path: '/auth/sessions/revoke',
    summary: 'End one of the user’s sessions (its refresh and access tokens stop working)',
    auth: 'full',
    limiters: [],
    request: json(),
    body: revokeSessionBody,
    responses: responses(
      { 200: { description: 'Ended', body: okData(z.object({ revoked: z.literal(1) })) } },
      { 404: failure('No live session of this user has that id (unknown and foreign ids alike)', errorFail, 'session_not_found') },
      refused('Validation failed (`fields.id`)'),
      FULL_AUTH,
      JSON_BODY_FIELDS,
      XSS,
    ),
  },
  revokeOtherSessions: {
    method: 'POST',
    path: '/auth/sessions/revoke-others',
    summary: 'Sign out everywhere else: end every session but this one',
    auth: 'full',
    limiters: [],
    request: json(),
    body: z.object({}),
    responses: responses({ 200: { description: 'How many sessions were ended', body: okData(z.object({ revoked: z.number().int().nonnegative() })) } }, FULL_AUTH, JSON_BODY_FIELDS, XSS),
  },
  changePassword: {
    method: 'POST',
    path: '/auth/change-password',
    summary: 'Change the password (other sessions end; this one gets a new token pair)',
    auth: 'full',
    guards: ['not-impersonated'],
    // the login limiters: a stolen session must not become an unthrottled password oracle
    limiters: ['loginIp', 'loginAccount', 'loginAccountDelay'],
    request: json(),
    body: changePasswordBody,
    responses: responses(
      { 200: { description: 'Changed: a new token pair and session cookie, like POST /login; `warnings` when the breach check was skipped', body: tokensBody.extend(passwordWarnings) } },
      refused('Validation failed, passwords do not match, policy or breached password (`fields`), or an account without a password', 'passwords_mismatch', 'password_rejected', 'no_password'),
      { 401: failure('Wrong current password (`fields.currentPassword`; counted by the login limiters), or this session ended meanwhile', errorFail, 'wrong_password', 'relogin_required') },
      { 409: failure('The password was changed meanwhile by another request', errorFail, 'password_changed_meanwhile') },
      { 503: failure('The breach check is unavailable', errorFail, 'breach_check_unavailable') },
      FULL_AUTH,
      JSON_BODY_FIELDS,
      LIMITED,
    ),
  },
  setPassword: {
    method: 'POST',
    path: '/auth/set-password',
    summary: 'Set a first password on an account that has none (created through a sign-in provider); needs a recent sign-in',
    auth: 'full',
    guards: ['verified-email', 'recent-sign-in'],
    limiters: [],
    request: json(),
    body: setPasswordBody,
    responses: responses(
      { 200: { description: 'Set: the account signs in with its address and this password from now on; `warnings` when the breach check was skipped', body: okData(z.object({ password: z.literal(true) })).extend(passwordWarnings) } },
      refused('Validation failed, passwords do not match, policy or breached password (`fields`)', 'passwords_mismatch', 'password_rejected'),
      ACCOUNT_GONE,
      { 409: failure('The account has a password: change it with POST /auth/change-password', errorFail, 'password_already_set') },
      { 503: failure('The breach check is unavailable', errorFail, 'breach_check_unavailable') },
      FULL_AUTH,
      JSON_BODY_FIELDS,
      VERIFIED_EMAIL,
      REAUTH,
    ),
  },
  unlinkProvider: {
    method: 'POST',
    path: '/auth/linked-accounts/unlink',
    summary: 'Unlink a sign-in provider from the account, while another way in remains; needs a recent sign-in',
    auth: 'full',
    guards: ['recent-sign-in'],
    limiters: [],
    request: json(),
    body: unlinkProviderBody,
    responses: responses(
      { 200: { description: 'Unlinked: that provider no longer signs in to this account', body: okData(z.object({ unlinked: z.literal(true) })) } },
      refused('Validation failed (`fields.provider`)'),
      ACCOUNT_GONE,
      { 404: failure('No account of that provider is linked', errorFail, 'provider_not_linked') },
      { 409: failure('It is the last way in (no password, no passkey, no other provider)', errorFail, 'last_way_in') },
      FULL_AUTH,
      JSON_BODY_FIELDS,
      XSS,
      REAUTH,
    ),
  },
  reauthenticate: {
    method: 'POST',
    path: '/auth/reauthenticate',
    summary: 'Prove the sign-in again before a change to how the account signs in (second factors, passkeys, email)',
    auth: 'full',
    guards: ['not-impersonated'],
    // a password counts like a failed sign-in; a second-factor code spends the account's code budget
    limiters: ['loginIp', 'loginAccount', 'loginAccountDelay', 'emails', 'links'],
    request: json(),
    body: reauthenticateBody,
    responses: responses(
      {
        200: {
          description:
            'Proven: the changes that need a recent sign-in are open to this session until `reauthenticatedUntil`; or, for an account with neither a password nor a second factor asked with `{}`, `mailed: true`: a code was mailed, send it back as `{ code }`',
          body: z.union([
            okData(z.object({ method: z.enum(['password', 'second_factor', 'emailed_code']), reauthenticatedUntil: z.string() })),
            okData(z.object({ mailed: z.literal(true), sentTo: z.string(), expiresAt: z.string() })),
          ]),
        },
      },
      refused('Validation failed (`fields`); or the proof does not fit the account (`use: "password" | "code"`), or a code with none mailed', 'password_expected', 'code_expected', 'no_code_sent'),
      { 401: failure('Wrong password (counted by the login limiters) or wrong code (`fields`); or the session is gone', errorFail, 'wrong_password', 'code_invalid', 'relogin_required') },
      { 503: failure('The code could not be mailed', errorFail, 'mail_failed') },
      FULL_AUTH,
      JSON_BODY_FIELDS,
      XSS,
      LIMITED,
      CODES_LOCKED,
    ),
  },
  listSecurityEvents: {
    method: 'GET',
    path: '/auth/security-events',
    summary: "The user's own security events, newest first, paginated",
    auth: 'full',
    limiters: [],
    request: noBody,
    query: securityEventsQuery,
    responses: responses(
      { 200: { description: 'A page of events; nextBefore when there are older ones', body: okData(z.object({ events: z.array(securityEventView), nextBefore: z.string().optional() })) } },
      refused('Bad limit or before (`fields`)'),
      FULL_AUTH,
    ),
  },
})
