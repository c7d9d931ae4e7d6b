/** GET /api/auth/email-sign-in -> IAM GET /auth/email-sign-in: which ways of signing in by email the sign-in page offers. */
import { callIamRoute } from '../../utils/bff/iam-call'
import { defineBffHandler, relay } from '../../utils/bff/respond'

export default defineBffHandler(async (event) => relay(event, await callIamRoute(event, 'emailSignInMethods', {})))
