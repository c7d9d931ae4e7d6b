/** Gateway authorization routes: what the gateway asks about a session (docs/gateway.md). */
import { SUPPORTED_LOCALES } from './locales'
import { PICTURE_SOURCES } from './profile-picture'
import { z } from 'zod'
import { cookieOnly, defineRoutes, json, noBody } from './define'
import { errorCode } from './error-codes'
import { COOKIE_ONLY, errorFail, failure, FULL_AUTH, JSON_BODY_FIELDS, responses, type Responses } from './responses'

/** The account or device the session names is gone: `{ authorized: false, reason: "Not found" }` */
const NO_ACCOUNT = {
  404: failure('The account or device is gone', z.union([z.object({ authorized: z.literal(false), reason: z.string(), code: errorCode }), errorFail]), 'account_not_found'),
} satisfies Responses

export const GATEWAY_AUTH_ROUTES = defineRoutes({
  secretData: {
    method: 'GET',
    path: '/secret/data',
    summary: 'The signed-in user (full authentication)',
    auth: 'full',
    limiters: [],
    request: noBody,
    responses: responses(
      {
        200: {
          description: 'The signed-in user',
          body: z.object({ userId: z.number().int(), authorized: z.literal(true), ipAddress: z.string(), userAgent: z.string(), date: z.string(), roles: z.array(z.string()) }),
        },
      },
      FULL_AUTH,
      NO_ACCOUNT,
    ),
  },
  accessTokenMetadata: {
    method: 'GET',
    path: '/secret/accesstoken/metadata',
    summary: 'The access token claims of this session',
    auth: 'full',
    limiters: [],
    request: cookieOnly,
    responses: responses(
      {
        200: {
          description: 'The access token claims and when to rotate it',
          body: z.object({
            authorized: z.literal(true),
            userId: z.number().int(),
            email: z.string(),
            emailVerified: z.boolean(),
            name: z.string(),
            locale: z.enum(SUPPORTED_LOCALES).nullable().describe('the language the owner chose for mails and pages; null: not chosen'),
            timeZone: z.string().nullable().describe("the IANA time zone the account's mails name their moments in (the owner's choice, else the latest sign-in's browser); null: none known, mails say UTC"),
            picture: z
              .object({ source: z.enum(PICTURE_SOURCES), gravatarUrl: z.string().nullable() })
              .describe('the picture the owner chose (GET /auth/picture for an upload; `gravatarUrl` for Gravatar, null otherwise)'),
            sessionId: z.string(),
            payload: z.record(z.string(), z.unknown()),
            roles: z.array(z.string()),
            issuedAt: z.string(),
            expiresAt: z.string(),
            msUntilExp: z.number().int().nonnegative(),
            refreshThreshold: z.number().int().nonnegative(),
            shouldRotate: z.boolean(),
          }),
        },
      },
      FULL_AUTH,
      COOKIE_ONLY,
      NO_ACCOUNT,
    ),
  },
  apiAccessToken: {
    method: 'POST',
    path: '/auth/user/api-access-token',
    summary: "An access token for one API of the session (the gateway's API proxy): aud that audience alone, sub the public id",
    auth: 'full',
    limiters: [],
    request: json(),
    body: z.strictObject({ audience: z.string().min(1).max(2048) }),
    responses: responses(
      {
        200: {
          description: 'The token: the session token\'s claims with `aud` the audience and `sub` the public id, at most jwt.api_access_tokens.expiresInMs and never past the session token',
          body: z.object({ ok: z.literal(true), date: z.iso.datetime(), accessToken: z.string(), tokenType: z.literal('Bearer'), audience: z.string(), expiresAt: z.iso.datetime() }),
        },
        400: failure('Validation failed', errorFail, 'validation_failed'),
        403: failure('Not an audience of jwt.api_access_tokens.audiences (`reason: AUDIENCE_NOT_ALLOWED`)', errorFail, 'audience_not_allowed'),
      },
      JSON_BODY_FIELDS,
      FULL_AUTH,
      NO_ACCOUNT,
    ),
  },
})
