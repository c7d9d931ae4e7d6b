/** GET /api/admin/users?q=&limit=&cursor= -> IAM GET /admin/users: a page of accounts and the cursor of the next (platform administrators). */
import { readAdminPageQuery } from '../../../utils/bff/admin'
import { defineBffHandler, relay } from '../../../utils/bff/respond'
import { callAuthedRoute } from '../../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const query = readAdminPageQuery(event, 'adminUsers')
  return relay(event, await callAuthedRoute(event, 'adminUsers', { query }))
})
