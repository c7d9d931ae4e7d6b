/**
 * Platform administration (features/admin, docs/administration.md): accounts and organizations as
 * an operator sees them, and what an operator may do to an account. Every route needs full
 * authentication, then the guards `platform-admin` (403 `Platform administrators only`, the same
 * body on every route) and `recent-sign-in` within security.adminReauthenticateWithinMs (403
 * `reauthenticate: true`). Accounts and organizations are named by their public ids; an unknown one
 * is 404. Every action is a security event of the account with the administrator's id.
 */
import { z } from 'zod'
import { safeString } from './text'
import { defineRoutes, json, noBody, type RouteGuard } from './define'
import { errorCode } from './error-codes'
import { errorFail, failure, FULL_AUTH, JSON_BODY_FIELDS, okData, REAUTH, responses, tokensBody, type Responses } from './responses'

/** The role in users.roles (and a session token's `roles`) that makes a platform administrator. */
export const PLATFORM_ADMIN_ROLE = 'admin'

export const ADMIN_GUARDS: readonly RouteGuard[] = ['platform-admin', 'recent-sign-in']

const uuid = (message: string) => z.string({ error: message }).regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, message)
const userParams = z.object({ userId: uuid('Not a user id') })
const orgParams = z.object({ orgId: uuid('Not an organization id') })

/** `?q=` a prefix of the email or name, or an account's exact external id (slug or name for organizations), `limit`, `cursor` of the page before. */
const pageQuery = z.strictObject({
  // 255: the longest external id (features/users/import-users.ts), searched as a whole
  q: z.string().trim().max(255, 'At most 255 characters').optional(),
  limit: z.coerce.number({ error: 'limit: 1 to 100' }).int('limit: 1 to 100').min(1, 'limit: 1 to 100').max(100, 'limit: 1 to 100').default(50),
  cursor: z.string().regex(/^[A-Za-z0-9_-]{1,40}$/, 'Not a cursor').optional(),
})

/** The longest suspension reason (the column's check repeats it: migration 0015) */
export const SUSPENSION_REASON_MAX = 500
/** The longest suspension by duration: ten years; longer is "until lifted" */
const SUSPENSION_DURATION_MAX_MS = 10 * 366 * 24 * 60 * 60 * 1000

const userSummary = z.object({
  id: z.string(),
  email: z.string(),
  name: z.string(),
  emailVerified: z.boolean(),
  admin: z.boolean(),
  createdAt: z.string(),
  bannedUntil: z.string().nullable(),
  deletionDueAt: z.string().nullable().describe('when a confirmed deletion erases the account unless its owner undoes it; null when none is pending'),
})
const orgSummary = z.object({ id: z.string(), slug: z.string(), name: z.string(), createdAt: z.string(), members: z.number().int() })

const userDetail = z.object({
  user: userSummary.extend({
    hasPassword: z.boolean(),
    firstVerifiedAt: z.string().nullable(),
    updatedAt: z.string(),
    externalId: z.string().nullable().describe('the account’s id in the system it was imported from (docs/import.md); null for none'),
    suspension: z
      .object({ until: z.string().nullable(), reason: z.string().nullable() })
      .nullable()
      .describe('the ban in force: its end (null: until lifted) and reason (null for a ban given without one); null when the account is not suspended'),
  }),
  sessions: z.array(z.object({ id: z.string(), createdAt: z.string(), lastSeenAt: z.string(), ipAddress: z.string().nullable(), browser: z.string().nullable(), os: z.string().nullable(), country: z.string().optional() })),
  factors: z.object({
    totp: z.object({ enabled: z.boolean(), createdAt: z.string(), enabledAt: z.string().nullable() }).nullable(),
    recoveryCodesLeft: z.number().int(),
    passkeys: z.array(z.object({ id: z.number().int(), name: z.string(), createdAt: z.string(), lastUsedAt: z.string().nullable(), backedUp: z.boolean() })),
  }),
  apiTokens: z.array(
    z.object({
      id: z.number().int(),
      name: z.string(),
      publicIdentifier: z.string(),
      privilege: z.string(),
      valid: z.boolean(),
      createdAt: z.string(),
      expiresAt: z.string().nullable(),
      lastUsedAt: z.string().nullable(),
      usageCount: z.number().int(),
      suspendedUntil: z.string().nullable(),
    }),
  ),
  organizations: z.array(z.object({ id: z.string(), slug: z.string(), name: z.string(), role: z.string(), roleName: z.string(), since: z.string() })),
  securityEvents: z.array(z.object({ type: z.string(), createdAt: z.string(), ipAddress: z.string().nullable(), details: z.record(z.string(), z.unknown()) })),
})

const orgDetail = z.object({
  org: orgSummary,
  members: z.array(
    z.object({
      userId: z.string(),
      email: z.string(),
      name: z.string(),
      role: z.string(),
      roleName: z.string(),
      since: z.string(),
      deactivatedAt: z.string().nullable().describe("when the organization's identity provider deactivated the member (SCIM, docs/scim.md); null while active"),
    }),
  ),
  roles: z.array(z.object({ id: z.string(), name: z.string(), permissions: z.array(z.string()), createdAt: z.string() })),
  invitations: z.array(z.object({ id: z.string(), email: z.string(), role: z.string(), createdAt: z.string(), expiresAt: z.string(), status: z.enum(['pending', 'accepted', 'revoked', 'expired']) })),
})

/** The longest window GET /admin/stats/signups answers: a week of hours. */
export const SIGNUP_STATS_MAX_HOURS = 168
const hoursError = `hours: 1 to ${SIGNUP_STATS_MAX_HOURS}`
const signupStatsQuery = z.strictObject({
  hours: z.coerce.number({ error: hoursError }).int(hoursError).min(1, hoursError).max(SIGNUP_STATS_MAX_HOURS, hoursError).default(24),
})
const failureCounts = z.object({ missing: z.number().int(), invalid: z.number().int(), expired: z.number().int(), replayed: z.number().int() })
const signupStats = z.object({
  perHour: z
    .array(
      z.object({
        hour: z.string().describe('the start of the UTC hour'),
        signups: z.number().int().describe('accounts created in the hour that still exist'),
        challengesFailed: z.number().int().describe('bot checks refused in the hour (an unavailable provider not counted)'),
        failures: failureCounts.describe('the refused bot checks by reason: no solution, a forged one, expired, used already'),
      }),
    )
    .describe('oldest first, every hour of the window; the last is the current hour so far'),
  totals: z.object({ signups: z.number().int(), challengesFailed: z.number().int() }),
})

/** The largest JSON body POST /admin/users/import takes; a larger file goes through the CLI, which streams it. */
export const ADMIN_IMPORT_LIMIT_BYTES = 5 * 1024 * 1024
export const ADMIN_IMPORT_TOO_LARGE = 'At most 5 MB of lines per request: import a larger file with `npm run iam -- users:import <file.jsonl>` (docs/import.md), or split it'

/** What users:import --json prints (features/users/import-users.ts ImportSummary). */
const importSummary = z.object({
  dryRun: z.boolean(),
  lines: z.number().int().describe('non-empty lines read'),
  imported: z.number().int().describe('accounts created (a dry run: that would be created)'),
  skipped: z.number().int(),
  invalid: z.number().int(),
  formats: z.record(z.string(), z.number().int()).describe('imported users by password hash format; `none`: no hash'),
  invalidLines: z.array(z.object({ line: z.number().int(), reason: z.string() })).describe('the first 1,000, by line number'),
  skippedLines: z
    .array(z.object({ line: z.number().int(), email: z.string(), reason: z.enum(['account_exists', 'external_id_differs', 'duplicate_in_file']) }))
    .describe('the first 1,000, by line number; `external_id_differs`: the account exists with another external id (or none), which it keeps'),
})

/** Every admin route: not an administrator, or no recent sign-in proof. */
/** The answers every admin route shares: not an administrator, no recent sign-in, full authentication. */
export const ADMIN = responses(
  { 403: failure('Not a platform administrator (`Platform administrators only`, the same on every admin route)', errorFail, 'not_admin') },
  REAUTH,
  FULL_AUTH,
)
const NO_USER = {
  400: failure('Not a user id', errorFail, 'validation_failed'),
  404: failure('No such user', errorFail, 'user_not_found'),
} satisfies Responses
const NO_ORG = {
  400: failure('Not an organization id', errorFail, 'validation_failed'),
  404: failure('No such organization', errorFail, 'org_not_found'),
} satisfies Responses
const PAGE = { 400: failure('A bad query (q, limit, cursor)', errorFail, 'validation_failed') } satisfies Responses

/** A POST on one account whose body is empty (`noBody`). */
const userAction = (summary: string, data: z.ZodType) =>
  ({
    method: 'POST',
    summary,
    auth: 'full',
    guards: ADMIN_GUARDS,
    limiters: [],
    request: noBody,
    params: userParams,
    responses: responses({ 200: { description: 'done', body: okData(data) } }, NO_USER, ADMIN),
  }) as const

export const ADMIN_ROUTES = defineRoutes({
  adminBootstrap: {
    method: 'POST',
    path: '/auth/admin-bootstrap',
    summary:
      'Make the signed-in account the first platform administrator with the one-time code a running IAM wrote beside its data while no administrator exists (features/admin/bootstrap.ts)',
    auth: 'full',
    guards: ['recent-sign-in'],
    limiters: [],
    request: json(),
    body: z.strictObject({ code: safeString({ error: 'The code is required' }).trim().min(1, 'The code is required').max(200, 'Not a bootstrap code') }),
    responses: responses(
      { 200: { description: 'The account is now a platform administrator', body: okData(z.object({ admin: z.literal(true) })) } },
      {
        403: failure('Not the code the IAM wrote, or it holds none (administrators exist, or `admin.bootstrapCode` is off)', errorFail, 'admin_bootstrap_code_invalid'),
        409: failure('An administrator exists already', errorFail, 'admin_exists'),
      },
      JSON_BODY_FIELDS,
      REAUTH,
      FULL_AUTH,
    ),
  },
  adminUsers: {
    method: 'GET',
    path: '/admin/users',
    summary: 'Accounts, oldest first, whose email or name starts with `q`, or whose external id is exactly `q`; `next` is the cursor of the following page',
    auth: 'full',
    guards: ADMIN_GUARDS,
    limiters: [],
    request: noBody,
    query: pageQuery,
    responses: responses({ 200: { description: 'a page of accounts', body: okData(z.object({ users: z.array(userSummary), next: z.string().nullable() })) } }, PAGE, ADMIN),
  },
  adminUser: {
    method: 'GET',
    path: '/admin/users/:userId',
    summary: "One account: profile, live sessions, factors' and API tokens' metadata, organizations, recent security events (never a secret or hash)",
    auth: 'full',
    guards: ADMIN_GUARDS,
    limiters: [],
    request: noBody,
    params: userParams,
    responses: responses({ 200: { description: 'the account', body: okData(userDetail) } }, NO_USER, ADMIN),
  },
  adminUserBan: {
    method: 'POST',
    path: '/admin/users/:userId/ban',
    summary:
      'Suspend the account with a `reason` (shown to the person at sign-in) until `until`, for `durationMs`, or (neither) until lifted: sign-in refused, sessions ended, API tokens suspended',
    auth: 'full',
    guards: ADMIN_GUARDS,
    limiters: [],
    request: json(),
    params: userParams,
    body: z
      .strictObject({
        reason: safeString({ error: 'Give a reason' }).trim().min(1, 'Give a reason').max(SUSPENSION_REASON_MAX, `At most ${SUSPENSION_REASON_MAX} characters`),
        until: z.iso.datetime({ offset: true, error: 'An ISO 8601 date and time' }).optional(),
        durationMs: z
          .number({ error: 'A number of milliseconds' })
          .int('A whole number of milliseconds')
          .min(60_000, 'At least one minute')
          .max(SUSPENSION_DURATION_MAX_MS, 'At most ten years; leave both out for "until lifted"')
          .optional(),
      }),
    responses: responses(
      {
        200: {
          description: 'Suspended: `until` its end (null: until lifted)',
          body: okData(z.object({ until: z.string().nullable(), reason: z.string(), sessionsEnded: z.number().int(), tokensSuspended: z.number().int() })),
        },
        400: failure('Validation failed (`fields`: a missing or long reason, both an end and a duration), or `until` is not in the future', errorFail, 'validation_failed'),
        409: failure('Your own account (`You cannot ban your own account`)', errorFail, 'own_account'),
      },
      NO_USER,
      JSON_BODY_FIELDS,
      ADMIN,
    ),
  },
  adminUserUnban: { ...userAction('Lift the ban of the account (its API tokens verify again)', z.object({ wasBanned: z.boolean() })), path: '/admin/users/:userId/unban' },
  adminUserSessionsRevoke: {
    ...userAction('End every session of the account, and what the OpenID Provider holds for it', z.object({ revoked: z.number().int() })),
    path: '/admin/users/:userId/sessions/revoke',
  },
  adminUserFactorRemove: {
    method: 'POST',
    path: '/admin/users/:userId/factors/remove',
    summary: 'Remove the account\'s authenticator app (with its recovery codes) or one passkey (`id`); the owner is told by mail',
    auth: 'full',
    guards: ADMIN_GUARDS,
    limiters: [],
    request: json(),
    params: userParams,
    body: z.discriminatedUnion(
      'kind',
      [z.strictObject({ kind: z.literal('totp') }), z.strictObject({ kind: z.literal('passkey'), id: z.number({ error: 'A passkey id' }).int().positive('A passkey id') })],
      { error: 'kind: totp or passkey (with its id)' },
    ),
    responses: responses(
      {
        200: { description: 'removed', body: okData(z.object({ removed: z.enum(['totp', 'passkey']) })) },
        400: failure('Validation failed', errorFail, 'validation_failed'),
        404: failure('The account has no such factor', errorFail, 'factor_not_found'),
      },
      NO_USER,
      JSON_BODY_FIELDS,
      ADMIN,
    ),
  },
  adminUserVerifyEmail: {
    ...userAction('Mark the account\'s address as confirmed', z.object({ wasVerified: z.boolean() })),
    path: '/admin/users/:userId/verify-email',
  },
  adminUserResetLink: {
    ...userAction('Mail the account a password reset link (or, without a password, the way to its provider)', z.object({ sent: z.literal(true) })),
    path: '/admin/users/:userId/reset-link',
  },
  adminUsersImport: {
    method: 'POST',
    path: '/admin/users/import',
    summary: 'Import accounts from JSON Lines text (the format of `users:import`, docs/import.md); `dryRun: true` checks everything and writes nothing',
    auth: 'full',
    guards: ADMIN_GUARDS,
    limiters: [],
    // the lines are JSON text with their line breaks: storable text (no NUL), not single-line text
    request: { kind: 'json', limitBytes: ADMIN_IMPORT_LIMIT_BYTES, text: 'storable', tooLarge: ADMIN_IMPORT_TOO_LARGE },
    body: z.strictObject({
      jsonl: z.string({ error: 'jsonl: the lines of the file, one user per line' }).min(1, 'jsonl: the lines of the file, one user per line'),
      dryRun: z.boolean({ error: 'dryRun: true or false' }).optional(),
    }),
    responses: responses(
      {
        200: { description: 'The report: counts, and each bad or skipped line with its number and reason', body: okData(importSummary) },
        400: failure('Validation failed (`fields.jsonl`, `fields.dryRun`)', errorFail, 'validation_failed'),
        413: failure('Over 5 MB (`message` points at the CLI)', z.object({ error: z.string(), code: errorCode, message: z.string().optional() }), 'payload_too_large'),
      },
      JSON_BODY_FIELDS,
      ADMIN,
    ),
  },
  adminUserImpersonate: {
    method: 'POST',
    path: '/admin/users/:userId/impersonate',
    summary:
      "Sign in as the account on its owner's behalf: a session that ends after security.impersonationTtlMs, whose access tokens carry `act` (RFC 8693 section 4.1); session cookie set",
    auth: 'full',
    guards: ADMIN_GUARDS,
    limiters: [],
    request: noBody,
    params: userParams,
    responses: responses(
      {
        200: {
          description: 'the session on the account\'s behalf: its access token, the session cookie set, when it ends and whom it is for',
          body: tokensBody.extend({ impersonation: z.object({ userId: z.string(), email: z.string(), name: z.string(), endsAt: z.string() }) }),
        },
        403: failure(
          'The account is a platform administrator, or your own (`Administrators cannot be impersonated`, `You cannot impersonate yourself`)',
          errorFail,
          'target_is_admin',
          'own_account',
        ),
      },
      { 404: failure('No such user, or the account is suspended (the same answer)', errorFail, 'user_not_found') },
      { 400: NO_USER[400]! },
      ADMIN,
    ),
  },
  adminImpersonationEnd: {
    method: 'POST',
    path: '/admin/impersonation/end',
    summary: 'End every session you opened on an account\'s behalf (each end recorded on both accounts)',
    auth: 'full',
    guards: ADMIN_GUARDS,
    limiters: [],
    request: noBody,
    responses: responses({ 200: { description: 'ended', body: okData(z.object({ ended: z.number().int() })) } }, ADMIN),
  },
  adminOrgs: {
    method: 'GET',
    path: '/admin/orgs',
    summary: 'Organizations, oldest first, whose slug or name starts with `q`; `next` is the cursor of the following page',
    auth: 'full',
    guards: ADMIN_GUARDS,
    limiters: [],
    request: noBody,
    query: pageQuery,
    responses: responses({ 200: { description: 'a page of organizations', body: okData(z.object({ orgs: z.array(orgSummary), next: z.string().nullable() })) } }, PAGE, ADMIN),
  },
  adminOrg: {
    method: 'GET',
    path: '/admin/orgs/:orgId',
    summary: 'One organization with its members, custom roles and invitations',
    auth: 'full',
    guards: ADMIN_GUARDS,
    limiters: [],
    request: noBody,
    params: orgParams,
    responses: responses({ 200: { description: 'the organization', body: okData(orgDetail) } }, NO_ORG, ADMIN),
  },
  adminSignupStats: {
    method: 'GET',
    path: '/admin/stats/signups',
    summary: `Accounts created and bot checks refused in each of the last \`hours\` UTC hours (1 to ${SIGNUP_STATS_MAX_HOURS}, default 24), the current hour last`,
    auth: 'full',
    guards: ADMIN_GUARDS,
    limiters: [],
    request: noBody,
    query: signupStatsQuery,
    responses: responses(
      { 200: { description: 'the counts per hour', body: okData(signupStats) }, 400: failure(`\`hours\` is not a whole number from 1 to ${SIGNUP_STATS_MAX_HOURS} (\`fields.hours\`), or another query key`, errorFail, 'validation_failed') },
      ADMIN,
    ),
  },
})
