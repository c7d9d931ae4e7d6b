/** Sessions, password change and the audit view (DESIGN sections 6 and 7, issue 15). */
import { z } from 'zod'
import { safeString } from '../lib/text'
import { defineRoutes, json, noBody } from './define'

const date = z.string().describe('ISO 8601 time of the answer')
const ok = <T extends z.ZodType>(data: T) => z.object({ ok: z.literal(true), date, data })
const failure = z.object({ ok: z.literal(false), date, error: z.string(), fields: z.record(z.string(), z.string()).optional() })
const tokens = z.object({ ok: z.literal(true), date, accessToken: z.string(), accessIat: z.number(), expiresInMs: z.number() })

const authFailures = {
  401: { description: 'Not authenticated, or the session has ended', body: failure },
  403: { description: 'Banned device or account', body: z.object({ banned: z.literal(true) }).passthrough() },
  202: { description: 'Adaptive MFA: a link was mailed', body: z.object({ mfa: z.literal(true), message: z.string() }) },
  429: { description: 'Rate limited', body: z.object({ error: z.string(), retry: z.union([z.number(), z.literal('permanent')]) }) },
}

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

export const revokeSessionBody = z.object({
  id: safeString({ error: 'The session id is required' }).min(1, 'The session id is required').max(100, 'Unknown session'),
})

export const changePasswordBody = z.object({
  currentPassword: safeString({ error: 'The current password is required' }).min(1, 'The current password is required').max(1024),
  password: safeString({ error: 'Password is required' }).min(1, 'Password is required').max(1024),
  confirmedPassword: safeString({ error: 'Confirm the password' }).min(1, 'Confirm the password').max(1024),
})

export const securityEventsQuery = z.object({
  limit: z
    .string()
    .regex(/^\d{1,3}$/, `limit is a number from 1 to ${SECURITY_EVENTS_MAX_LIMIT}`)
    .transform(Number)
    .refine((n) => n >= 1 && n <= SECURITY_EVENTS_MAX_LIMIT, `limit is a number from 1 to ${SECURITY_EVENTS_MAX_LIMIT}`)
    .optional(),
  before: z.string().regex(SECURITY_EVENTS_CURSOR, 'before is the nextBefore of a previous page').optional(),
})

export const ACCOUNT_SECURITY_ROUTES = defineRoutes({
  listSessions: {
    method: 'GET',
    path: '/auth/sessions',
    summary: "The user's live sessions, newest first",
    auth: 'full',
    limiters: [],
    request: noBody,
    responses: {
      200: { description: 'Live sessions (not revoked, not expired)', body: ok(z.object({ sessions: z.array(sessionView) })) },
      ...authFailures,
    },
  },
  revokeSession: {
    method: 'POST',
    path: '/auth/sessions/revoke',
    summary: 'End one of the user’s sessions (its refresh and access tokens stop working)',
    auth: 'full',
    limiters: [],
    request: json(),
    body: revokeSessionBody,
    responses: {
      200: { description: 'Revoked', body: ok(z.object({ revoked: z.literal(1) })) },
      400: { description: 'Validation failed', body: failure },
      404: { description: 'No live session of this user has that id (unknown and foreign ids alike)', body: failure },
      ...authFailures,
    },
  },
  revokeOtherSessions: {
    method: 'POST',
    path: '/auth/sessions/revoke-others',
    summary: 'Sign out everywhere else: end every session but this one',
    auth: 'full',
    limiters: [],
    request: json(),
    body: z.object({}),
    responses: {
      200: { description: 'How many sessions were ended', body: ok(z.object({ revoked: z.number() })) },
      ...authFailures,
    },
  },
  changePassword: {
    method: 'POST',
    path: '/auth/change-password',
    summary: 'Change the password (other sessions end; this one gets a new token pair)',
    auth: 'full',
    // consumes the login limiters (login IP, login IP + email, the account's progressive delay)
    limiters: [],
    request: json(),
    body: changePasswordBody,
    responses: {
      200: { description: 'Changed: a new token pair and session cookie, like POST /login', body: tokens },
      400: { description: 'Validation, mismatch, policy, breached password, or an account without a password', body: failure },
      401: { description: 'Wrong current password (counted by the login limiter), or not authenticated', body: failure },
      409: { description: 'The password was changed meanwhile by another request', body: failure },
      503: { description: 'The breach check is unavailable', body: failure },
      202: authFailures[202],
      403: authFailures[403],
      429: authFailures[429],
    },
  },
  listSecurityEvents: {
    method: 'GET',
    path: '/auth/security-events',
    summary: "The user's own security events, newest first, paginated",
    auth: 'full',
    limiters: [],
    request: noBody,
    query: securityEventsQuery,
    responses: {
      200: {
        description: 'A page of events; nextBefore when there are older ones',
        body: ok(z.object({ events: z.array(securityEventView), nextBefore: z.string().optional() })),
      },
      400: { description: 'Bad limit or before', body: failure },
      ...authFailures,
    },
  },
})
