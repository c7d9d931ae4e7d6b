/**
 * GET /api/auth/picture (signed in) -> IAM GET /auth/picture: the uploaded picture from the
 * gateway's own origin, so pages draw it with a plain <img src> and the session cookie. Only the
 * three image types the IAM stores are passed on, with `nosniff` and a CSP of `default-src 'none'`
 * (opened on its own, the answer runs nothing), `private, no-cache` and the ETag: the browser keeps
 * the picture and asks each time, a matching If-None-Match answered 304 here without the bytes
 * (RFC 9110 section 13.1.2). Every other answer is relayed as JSON (404 `picture_not_found`, 401
 * signed out).
 */
import { getRequestHeader, setResponseHeaders, setResponseStatus } from 'h3'
import { isPictureType, mediaTypeOf } from '../../../iam/contract/profile-picture'
import { bffFail, defineBffHandler, relay, SERVICE_FAILED_MESSAGE } from '../../utils/bff/respond'
import { callAuthedRoute } from '../../utils/bff/session'

/** An ETag as the IAM makes them: the quoted hex SHA-256 of the bytes. */
const ETAG = /^"[0-9a-f]{64}"$/

export default defineBffHandler(async (event) => {
  const res = await callAuthedRoute(event, 'readPicture', {})
  if (res.status !== 200) return relay(event, res)
  const type = mediaTypeOf(res.headers.get('content-type') ?? undefined)
  const etag = res.headers.get('etag') ?? ''
  // a 200 that is not one of the stored types is the IAM failing, never something to serve as is
  if (!isPictureType(type) || !ETAG.test(etag)) bffFail(502, { ok: false, error: SERVICE_FAILED_MESSAGE, code: 'service_failed' })
  setResponseHeaders(event, {
    etag,
    'cache-control': 'private, no-cache',
    'x-content-type-options': 'nosniff',
    'content-security-policy': "default-src 'none'",
    'cross-origin-resource-policy': 'same-origin',
  })
  const asked = getRequestHeader(event, 'if-none-match')
  if (asked?.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag)) {
    setResponseStatus(event, 304)
    return null
  }
  setResponseHeaders(event, { 'content-type': type })
  return Buffer.from(res.raw.buffer, res.raw.byteOffset, res.raw.byteLength)
})
