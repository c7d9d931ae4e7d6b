/**
 * PUT /api/auth/picture (signed in; the image itself as the body, with its Content-Type) -> IAM
 * PUT /auth/picture. The body was read bounded by server/middleware/15.body-limit.ts (the largest
 * cap an IAM may have); the IAM judges the type by the bytes and the size by its own cap, and its
 * refusals are relayed with their codes (`picture_type_unsupported`, `picture_type_mismatch`,
 * `picture_too_large`, `picture_empty`).
 */
import { getRequestHeader, readRawBody } from 'h3'
import { defineBffHandler, relay } from '../../utils/bff/respond'
import { callAuthedRoute } from '../../utils/bff/session'

/** A media type as RFC 9110 section 8.3.1 spells one (parameters dropped): anything else is sent as unknown. */
const MEDIA_TYPE = /^[a-z0-9!#$&^_.+-]{1,64}\/[a-z0-9!#$&^_.+-]{1,64}$/

export default defineBffHandler(async (event) => {
  const declared = (getRequestHeader(event, 'content-type') ?? '').split(';')[0]!.trim().toLowerCase()
  const bytes = (await readRawBody(event, false)) ?? Buffer.alloc(0)
  const contentType = MEDIA_TYPE.test(declared) ? declared : 'application/octet-stream'
  return relay(event, await callAuthedRoute(event, 'uploadPicture', { raw: { contentType, bytes } }))
})
