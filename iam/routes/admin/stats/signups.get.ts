import { ROUTES } from '../../../contract/routes'
import { signupStats } from '../../../features/admin/signup-stats'
import { okEnvelope } from '../../../http/respond'
import { defineRoute } from '../../../http/route'

/** GET /admin/stats/signups?hours= (platform administrators, a recent sign-in): sign-ups and refused bot checks per hour. */
export default defineRoute(ROUTES.adminSignupStats, [], async ({ ctx, query }) => okEnvelope(await signupStats(ctx, query.hours)))
