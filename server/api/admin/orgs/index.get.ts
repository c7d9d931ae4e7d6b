/** GET /api/admin/orgs?q=&limit=&cursor= -> IAM GET /admin/orgs: a page of organizations and the cursor of the next (platform administrators). */
import { readAdminPageQuery } from '../../../utils/bff/admin'
import { defineBffHandler, relay } from '../../../utils/bff/respond'
import { callAuthedRoute } from '../../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const query = readAdminPageQuery(event, 'adminOrgs')
  return relay(event, await callAuthedRoute(event, 'adminOrgs', { query }))
})
