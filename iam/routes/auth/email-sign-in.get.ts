import { ROUTES } from '../../contract/routes'
import { emailSignInMethods } from '../../features/users/email-sign-in-request'
import { defineRoute } from '../../http/route'
import { okEnvelope } from '../../http/respond'

/** GET /auth/email-sign-in: which ways of signing in by email the sign-in page offers (config `signIn`). */
export default defineRoute(ROUTES.emailSignInMethods, [], ({ ctx }) => okEnvelope(emailSignInMethods(ctx.config)))
