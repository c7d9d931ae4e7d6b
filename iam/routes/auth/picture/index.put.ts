import { isPictureType, mediaTypeOf, pictureTypeOf } from '../../../contract/profile-picture'
import { ROUTES } from '../../../contract/routes'
import { storePicture } from '../../../features/users/profile-picture'
import { pictureAccount } from '../../../http/picture-account'
import { httpFail, okEnvelope } from '../../../http/respond'
import { defineRoute, limit } from '../../../http/route'

/**
 * PUT /auth/picture (full authentication; the raw image as the body, bounded by middleware/30): an
 * empty body is 400 `picture_empty`; the type is the one the content's magic bytes show, PNG, JPEG or WebP,
 * else 415 `picture_type_unsupported` (SVG would carry script, and nothing the pages draw needs
 * more); a declared Content-Type that names another type is 415 `picture_type_mismatch`, so a
 * client's mistake is not silently stored under a type it did not mean. 200 the picture as chosen.
 */
export default defineRoute(ROUTES.uploadPicture, [limit('picture', (req) => ({ userId: req.user!.userId }))], async ({ event, ctx, user, actor }) => {
  const body = event.context.imageBody
  if (!body) throw new Error('PUT /auth/picture: middleware/30 kept no image body')
  if (body.bytes.length === 0) return httpFail(400, { error: 'The picture upload is empty', code: 'picture_empty' })
  const detected = pictureTypeOf(body.bytes)
  if (!detected) return httpFail(415, { error: 'Only PNG, JPEG and WebP pictures are accepted', code: 'picture_type_unsupported' })
  const declared = mediaTypeOf(body.declaredType)
  if (declared !== detected) {
    const code = isPictureType(declared) ? 'picture_type_mismatch' : 'picture_type_unsupported'
    return httpFail(415, { error: `The picture is ${detected} but was sent as ${declared || 'no type'}`, code, detected })
  }
  return okEnvelope(await storePicture(ctx, { account: pictureAccount(event, user), actor, bytes: body.bytes, type: detected }))
})
