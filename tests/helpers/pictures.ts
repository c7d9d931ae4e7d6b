/**
 * Small pictures for the profile picture tests (IAM, gateway, e2e): a real 1x1 PNG and WebP a
 * browser draws, a JPEG that is its markers and a little data (the IAM judges the leading bytes,
 * never decodes), and what must be refused: an SVG, a GIF; and the check of an answer that serves one.
 */
import { createHash } from 'node:crypto'
import { expect } from 'vitest'

/** A picture's ETag as the IAM makes it: the SHA-256 of its bytes, quoted. */
export const etagOf = (bytes: Buffer): string => `"${createHash('sha256').update(bytes).digest('hex')}"`

/**
 * Checks an answer that serves `bytes` as the account's picture (the IAM's GET /auth/picture, or
 * the gateway's relay of it): 200, the stored type, the ETag, the headers that keep it an image a
 * browser never sniffs into a document and no shared cache keeps, and the bytes themselves.
 */
export async function expectServedPicture(res: Response, bytes: Buffer, type: string): Promise<void> {
  expect(res.status).toBe(200)
  expect({
    type: res.headers.get('content-type'),
    etag: res.headers.get('etag'),
    sniffing: res.headers.get('x-content-type-options'),
    csp: res.headers.get('content-security-policy'),
    cache: res.headers.get('cache-control'),
  }).toEqual({ type, etag: etagOf(bytes), sniffing: 'nosniff', csp: "default-src 'none'", cache: 'private, no-cache' })
  expect(Buffer.from(await res.arrayBuffer()).equals(bytes)).toBe(true)
}

/** A 1x1 PNG (one opaque pixel). */
export const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64')

/** A 1x1 lossless WebP. */
export const WEBP = Buffer.from('UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==', 'base64')

/** JPEG's start of image and a JFIF APP0 segment, then filler and the end of image marker. */
export const JPEG = Buffer.concat([
  Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00]),
  Buffer.alloc(64, 0x11),
  Buffer.from([0xff, 0xd9]),
])

/** An SVG that would run script if a browser rendered it as a document. */
export const SVG = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><rect width="1" height="1"/></svg>')

/** A 1x1 GIF89a. */
export const GIF = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64')
