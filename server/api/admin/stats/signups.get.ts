/** GET /api/admin/stats/signups?hours= -> IAM GET /admin/stats/signups (platform administrators): sign-ups and refused bot checks per hour. */
import { readSignupStatsQuery } from '../../../utils/bff/admin'
import { defineBffHandler, relay } from '../../../utils/bff/respond'
import { callAuthedRoute } from '../../../utils/bff/session'

export default defineBffHandler(async (event) => relay(event, await callAuthedRoute(event, 'adminSignupStats', { query: readSignupStatsQuery(event) })))
