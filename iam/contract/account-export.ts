/**
 * The account's own data as a download (docs/accounts.md "Download your data"): everything the
 * account holds about its owner, as metadata. Never a secret or a hash: no password hash, TOTP
 * secret, recovery code, token or token hash, passkey key, session id or link.
 */
import { z } from 'zod'
import { defineRoutes, noBody } from './define'
import { PICTURE_SOURCES, PICTURE_TYPES } from './profile-picture'
import { errorFail, failure, FULL_AUTH, LIMITED, REAUTH, responses } from './responses'

/** The version of the document's shape; a change that removes or renames a field raises it. */
export const ACCOUNT_EXPORT_VERSION = 1

/** At most this many security events, newest first; `securityEventsComplete` says whether older ones were left out. */
export const EXPORT_EVENTS_MAX = 10_000

/** `account-export-<YYYY-MM-DD>.json`: the date is the export's own (UTC). */
export const exportFileName = (exportedAt: Date | string): string => `account-export-${new Date(exportedAt).toISOString().slice(0, 10)}.json`

/** The file's name as the download's Content-Disposition carries it (RFC 6266 section 4.1). */
export const EXPORT_FILE_NAME = /^account-export-\d{4}-\d{2}-\d{2}\.json$/

const at = z.string().describe('ISO 8601')
const atOrNull = z.string().nullable()

export const accountExportDocument = z.object({
  version: z.literal(ACCOUNT_EXPORT_VERSION),
  exportedAt: at,
  profile: z.object({
    id: z.string().describe('the account’s public id'),
    email: z.string(),
    name: z.string(),
    emailVerified: z.boolean(),
    hasPassword: z.boolean(),
    createdAt: at,
    externalId: z.string().nullable().describe('the account’s id in the system it was imported from; null for none'),
    locale: z.string().nullable().describe('the language the owner chose for mails and pages (docs/i18n.md); null: not chosen'),
    timeZone: z.string().nullable().describe("the IANA time zone of the account's mails (docs/accounts.md): the owner's choice, else the latest sign-in's browser; null: none known"),
  }),
  sessions: z
    .array(
      z.object({
        current: z.boolean().describe('the session that made the export'),
        createdAt: at,
        lastSeenAt: at,
        ipAddress: z.string().nullable(),
        userAgent: z.string().nullable(),
        browser: z.string().nullable(),
        os: z.string().nullable(),
        country: z.string().nullable(),
      }),
    )
    .describe('live sessions, newest first (no session ids)'),
  picture: z
    .object({
      source: z.enum(PICTURE_SOURCES).describe('none, upload (below) or gravatar (loaded from Gravatar by the browser; nothing of it is stored here)'),
      contentType: z.enum(PICTURE_TYPES).nullable().describe('the uploaded picture’s type; null without an upload'),
      base64: z.string().nullable().describe('the uploaded picture’s bytes, base64 (RFC 4648 section 4); null without an upload'),
      updatedAt: atOrNull,
    })
    .describe('the account’s picture (docs/accounts.md "Profile picture")'),
  securityEvents: z
    .array(z.object({ type: z.string(), createdAt: at, ipAddress: z.string().nullable(), browser: z.string().nullable(), details: z.record(z.string(), z.unknown()) }))
    .describe(`newest first, at most ${EXPORT_EVENTS_MAX}`),
  securityEventsComplete: z.boolean().describe('false when older events were left out'),
  apiTokens: z.array(
    z.object({
      name: z.string(),
      publicIdentifier: z.string().describe('the non-secret handle of the token'),
      privilege: z.string(),
      valid: z.boolean(),
      ipRestrictions: z.array(z.string()).nullable(),
      createdAt: at,
      expiresAt: atOrNull,
      lastUsedAt: atOrNull,
      usageCount: z.number().int(),
    }),
  ),
  secondFactors: z.object({
    totp: z.object({ enabled: z.boolean(), createdAt: at, enabledAt: atOrNull }).nullable(),
    recoveryCodesRemaining: z.number().int(),
    passkeys: z.array(z.object({ name: z.string(), createdAt: at, lastUsedAt: atOrNull, backedUp: z.boolean() })),
  }),
  linkedProviders: z.array(z.object({ provider: z.string(), email: z.string().nullable(), linkedAt: at, lastSignInAt: at })),
  organizations: z.array(z.object({ id: z.string(), slug: z.string(), name: z.string(), role: z.string(), since: at })),
  connectedApps: z.array(
    z.object({ clientId: z.string(), name: z.string(), metadataDocumentHost: z.string().nullable().describe('the host of an app known only by its metadata document; null for a registered app'), scopes: z.array(z.string()), since: at }),
  ),
})

export type AccountExportDocument = z.infer<typeof accountExportDocument>

export const ACCOUNT_EXPORT_ROUTES = defineRoutes({
  accountExport: {
    method: 'GET',
    path: '/auth/export',
    summary: 'Download the account’s own data as JSON (an attachment, never cached); needs a recent sign-in',
    auth: 'full',
    guards: ['recent-sign-in'],
    limiters: ['export'],
    request: noBody,
    responses: responses(
      {
        200: {
          description: 'The export document itself (no envelope), with `Content-Disposition: attachment; filename="account-export-<date>.json"` and `Cache-Control: no-store`',
          body: accountExportDocument,
        },
      },
      FULL_AUTH,
      { 401: failure('The account is gone: re-login is required (`reason: USER_NOT_FOUND`)', errorFail, 'relogin_required') },
      REAUTH,
      LIMITED,
    ),
  },
})
