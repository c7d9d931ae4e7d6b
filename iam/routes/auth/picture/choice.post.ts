import { ROUTES } from '../../../contract/routes'
import { choosePicture } from '../../../features/users/profile-picture'
import { pictureAccount } from '../../../http/picture-account'
import { okEnvelope } from '../../../http/respond'
import { defineRoute } from '../../../http/route'

/**
 * POST /auth/picture/choice `{ source: "gravatar" | "none" }` (full authentication): uses the
 * address's Gravatar (loaded by the browser, never by the IAM) or no picture; an uploaded picture
 * is deleted either way. 200 the picture as chosen; 400 validation.
 */
export default defineRoute(ROUTES.choosePicture, [], async ({ event, ctx, user, actor, body }) =>
  okEnvelope(await choosePicture(ctx, { account: pictureAccount(event, user), actor, source: body.source })),
)
