import { setResponseHeaders, setResponseStatus } from 'h3'
import { ROUTES } from '../../../contract/routes'
import { readPicture } from '../../../features/users/profile-picture'
import { authFail } from '../../../http/auth'
import { requestHeader } from '../../../http/request'
import { defineRoute } from '../../../http/route'

/**
 * GET /auth/picture (full authentication): the uploaded picture's bytes with their stored type.
 * `nosniff` and a CSP of `default-src 'none'` keep the bytes an image whatever a browser makes of
 * them (only PNG, JPEG and WebP were stored, judged by their content, and opened directly they
 * still run nothing); `private, no-cache` with the ETag lets the browser keep it but ask each time
 * (RFC 9111 section 5.2.2.4), so a new picture shows at once, and 304 answers a matching
 * If-None-Match (RFC 9110 section 13.1.2). 404 `picture_not_found` without an upload in use.
 */
export default defineRoute(ROUTES.readPicture, [], async ({ event, ctx, user }) => {
  const picture = await readPicture(ctx, user.userId)
  if (!picture) return authFail(404, 'picture_not_found', 'No picture has been uploaded')
  setResponseHeaders(event, {
    etag: picture.etag,
    'cache-control': 'private, no-cache',
    'x-content-type-options': 'nosniff',
    'content-security-policy': "default-src 'none'",
    'cross-origin-resource-policy': 'same-origin',
  })
  const asked = requestHeader(event, 'if-none-match')
  if (asked && asked.split(',').some((tag) => tag.trim().replace(/^W\//, '') === picture.etag)) {
    setResponseStatus(event, 304)
    return null
  }
  setResponseHeaders(event, { 'content-type': picture.contentType })
  return Buffer.from(picture.bytes.buffer, picture.bytes.byteOffset, picture.bytes.byteLength)
})
