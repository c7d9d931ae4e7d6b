/**
 * The body of an image route (request rule `image`, iam/contract/define.ts): the raw bytes of an
 * upload, read once under the configured cap (profilePicture.maxBytes) by whichever middleware asks
 * first (the HMAC check, whose version 2 and 3 signatures cover the body, or the request rules),
 * like a JSON route's (http/raw-body.ts). The route decides the type from the bytes
 * (features/users/profile-picture.ts).
 */
import type { H3Event } from 'h3'
import { useIam } from '../context'
import { readRawBody, refusalHeaders } from './raw-body'
import { requestHeader } from './request'
import { httpFail } from './respond'

declare module 'h3' {
  interface H3EventContext {
    /** set by middleware/30.request-rules.ts on an image route: the non-empty body within the cap */
    imageBody?: { bytes: Buffer; declaredType: string | undefined }
  }
}

export const pictureLimitBytes = (): number => useIam().config.profilePicture.maxBytes

/** 413 with the cap in bytes, so the page can say it (the rest of the body: http/raw-body.ts readRawBody). */
export function failPictureTooLarge(event: H3Event): never {
  const limitBytes = pictureLimitBytes()
  return httpFail(413, { error: `The picture is larger than ${limitBytes} bytes`, code: 'picture_too_large', limitBytes }, refusalHeaders(event))
}

/** The body bytes of an image route, at most the cap (read once per request: http/raw-body.ts). */
export async function readPictureBody(event: H3Event): Promise<Buffer> {
  // A compressed body's size says nothing about what it inflates to, as on the JSON routes.
  const encoding = requestHeader(event, 'content-encoding')
  if (encoding && encoding.toLowerCase() !== 'identity') httpFail(415, { error: 'Content-Encoding not supported', code: 'content_encoding_unsupported' })
  const raw = await readRawBody(event, pictureLimitBytes())
  if (raw === 'too-large') failPictureTooLarge(event)
  return raw
}

/**
 * middleware/30: the body of an image route within the cap, kept for the route. An empty body is
 * the route's to refuse (400 `picture_empty`), after full authentication: a revoked session is
 * 401 whatever it sends, as on every full-authentication route.
 */
export async function applyImageRule(event: H3Event): Promise<void> {
  const bytes = await readPictureBody(event)
  event.context.imageBody = { bytes, declaredType: requestHeader(event, 'content-type') }
}
