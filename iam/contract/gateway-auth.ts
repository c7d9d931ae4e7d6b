/** Gateway authorization routes (IAM spec "Gateway authorization"). */
import { z } from 'zod'
import { cookieOnly, defineRoutes, noBody } from './define'
import { COOKIE_ONLY, FULL_AUTH, responses, type Responses } from './responses'

/** The account or device the session names is gone: `{ authorized: false, reason: "Not found" }` */
const NO_ACCOUNT: Responses = { 404: { description: 'The account or device is gone', body: z.object({ authorized: z.literal(false), reason: z.string() }) } }

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
})
