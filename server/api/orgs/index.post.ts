/** POST /api/orgs (signed in) `{ name, slug }` -> IAM POST /orgs: 201 `{ data: { org } }`; 409 slug taken. */
import { readIamBody } from '../../utils/bff/input'
import { defineBffHandler, relay } from '../../utils/bff/respond'
import { callAuthedRoute } from '../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const { body } = await readIamBody(event, 'orgCreate')
  return relay(event, await callAuthedRoute(event, 'orgCreate', { body }))
})
