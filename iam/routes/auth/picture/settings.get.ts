import { ROUTES } from '../../../contract/routes'
import { pictureSettings } from '../../../features/users/profile-picture'
import { pictureAccount } from '../../../http/picture-account'
import { okEnvelope } from '../../../http/respond'
import { defineRoute } from '../../../http/route'

/** GET /auth/picture/settings (full authentication): 200 which picture the account uses and the upload cap. */
export default defineRoute(ROUTES.pictureSettings, [], async ({ event, ctx, user }) => okEnvelope(await pictureSettings(ctx, pictureAccount(event, user))))
