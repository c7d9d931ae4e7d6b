/**
 * The account's picture (docs/accounts.md "Profile picture"): an uploaded PNG, JPEG or WebP image,
 * or the person's Gravatar when they choose it, or none (the pages show initials then).
 *
 * Plain TypeScript and zod only, like the rest of the contract: the gateway imports the types, the
 * Gravatar address and the magic-byte check (the page's own check before an upload is only a hint;
 * the IAM decides).
 */
import { z } from 'zod'
import { defineRoutes, imageBody, json, noBody } from './define'
import { errorFail, failure, FULL_AUTH, JSON_BODY_FIELDS, LIMITED, okData, plainError, responses } from './responses'

/** The types an upload may have, each recognised by its leading bytes (pictureTypeOf). */
export const PICTURE_TYPES = ['image/png', 'image/jpeg', 'image/webp'] as const
export type PictureType = (typeof PICTURE_TYPES)[number]

/** What the person chose: no picture, their upload, or their Gravatar. */
export const PICTURE_SOURCES = ['none', 'upload', 'gravatar'] as const
export type PictureSourceName = (typeof PICTURE_SOURCES)[number]

/** The default cap of an upload (profilePicture.maxBytes): 1 MiB. */
export const PICTURE_DEFAULT_MAX_BYTES = 1024 * 1024
/** The largest cap a deployment may configure; the gateway reads no more than this of an upload. */
export const PICTURE_MAX_BYTES_CEILING = 8 * 1024 * 1024

/** The Gravatar image size asked for: twice the largest size the pages draw it at (80 CSS px), for dense screens. */
export const GRAVATAR_SIZE = 160

const startsWith = (bytes: Uint8Array, prefix: readonly number[], at = 0) => bytes.length >= at + prefix.length && prefix.every((b, i) => bytes[at + i] === b)

/**
 * The picture type the content shows by its magic bytes, or undefined for anything else (SVG,
 * GIF, HTML, ...): PNG's eight-byte signature (RFC 2083 section 12.11), JPEG's SOI marker followed
 * by another marker (ITU T.81 B.1.1.2), WebP's `RIFF....WEBP` container (RFC 9649 section 2.4).
 * The declared Content-Type is never trusted: a browser may sniff what it was told (the read's
 * `nosniff` stops that), and SVG would carry script.
 */
export function pictureTypeOf(bytes: Uint8Array): PictureType | undefined {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png'
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return 'image/jpeg'
  if (startsWith(bytes, [0x52, 0x49, 0x46, 0x46]) && startsWith(bytes, [0x57, 0x45, 0x42, 0x50], 8)) return 'image/webp'
  return undefined
}

/** The media type of a Content-Type header value, lowercased, its parameters dropped. */
export const mediaTypeOf = (contentType: string | undefined): string => (contentType ?? '').split(';')[0]!.trim().toLowerCase()

export const isPictureType = (value: string): value is PictureType => (PICTURE_TYPES as readonly string[]).includes(value)

/** Gravatar's address of an email: the SHA-256 hex of the trimmed, lowercased address, 404 when it has none (so the page shows initials). */
export const gravatarUrl = (emailSha256Hex: string, size = GRAVATAR_SIZE): string => `https://gravatar.com/avatar/${emailSha256Hex}?d=404&s=${size}`

/** The origin the page's CSP img-src allows for Gravatar (server/utils/security-headers.ts). */
export const GRAVATAR_ORIGIN = 'https://gravatar.com'

export const pictureView = z.object({
  source: z.enum(PICTURE_SOURCES).describe('none: initials; upload: GET /auth/picture; gravatar: `gravatarUrl`, loaded by the browser'),
  gravatarUrl: z.string().nullable().describe('the Gravatar image address when the source is gravatar; null otherwise'),
  contentType: z.enum(PICTURE_TYPES).nullable().describe('the uploaded picture’s type; null without an upload in use'),
  etag: z.string().nullable().describe('the uploaded picture’s ETag (GET /auth/picture); null without one'),
  maxBytes: z.number().int().positive().describe('the largest upload taken (profilePicture.maxBytes)'),
})
export type PictureView = z.infer<typeof pictureView>

export const choosePictureBody = z.strictObject({
  source: z.enum(['gravatar', 'none'], { error: 'Choose gravatar or none' }).describe('gravatar: use the account address’s Gravatar; none: no picture. Either removes an uploaded picture'),
})

const PICTURE_REFUSED = {
  400: failure('No body (`picture_empty`)', plainError, 'picture_empty'),
  413: failure('Over the configured cap (`limitBytes`)', plainError.extend({ limitBytes: z.number().int() }), 'picture_too_large'),
  415: failure(
    'Not a PNG, JPEG or WebP image by its content (`picture_type_unsupported`), a declared type other than the content’s (`picture_type_mismatch`, `detected`), or a compressed body',
    plainError,
    'picture_type_unsupported',
    'picture_type_mismatch',
    'content_encoding_unsupported',
  ),
} as const

export const PROFILE_PICTURE_ROUTES = defineRoutes({
  uploadPicture: {
    method: 'PUT',
    path: '/auth/picture',
    summary: 'Upload the account’s picture: the raw PNG, JPEG or WebP bytes with their Content-Type; replaces any earlier one',
    auth: 'full',
    limiters: ['picture'],
    request: imageBody,
    responses: responses({ 200: { description: 'Stored: the picture as now chosen', body: okData(pictureView) } }, PICTURE_REFUSED, FULL_AUTH, LIMITED),
  },
  readPicture: {
    method: 'GET',
    path: '/auth/picture',
    summary: 'The account’s uploaded picture: its bytes with their type and ETag (304 for a matching If-None-Match)',
    auth: 'full',
    limiters: [],
    request: noBody,
    responses: responses(
      {
        200: { description: 'The image bytes (Content-Type image/png, image/jpeg or image/webp), `nosniff`, a CSP of `default-src \'none\'`' },
        304: { description: 'The If-None-Match names the current picture' },
      },
      { 404: failure('No uploaded picture in use (none, or Gravatar chosen)', errorFail, 'picture_not_found') },
      FULL_AUTH,
    ),
  },
  pictureSettings: {
    method: 'GET',
    path: '/auth/picture/settings',
    summary: 'Which picture the account uses and the upload cap',
    auth: 'full',
    limiters: [],
    request: noBody,
    responses: responses({ 200: { description: 'The picture as chosen', body: okData(pictureView) } }, FULL_AUTH),
  },
  choosePicture: {
    method: 'POST',
    path: '/auth/picture/choice',
    summary: 'Use the account address’s Gravatar, or no picture; either removes an uploaded picture',
    auth: 'full',
    limiters: [],
    request: json(),
    body: choosePictureBody,
    responses: responses(
      { 200: { description: 'Chosen: the picture as now chosen', body: okData(pictureView) } },
      { 400: failure('Validation failed (`fields.source`)', errorFail, 'validation_failed') },
      FULL_AUTH,
      JSON_BODY_FIELDS,
    ),
  },
})
