/** GET /api/auth/picture/settings (signed in) -> IAM GET /auth/picture/settings: which picture the account uses, and the upload cap. */
import { defineBffHandler, relay } from '../../../utils/bff/respond'
import { callAuthedRoute } from '../../../utils/bff/session'

export default defineBffHandler(async (event) => relay(event, await callAuthedRoute(event, 'pictureSettings', {})))
