/** POST /api/orgs/:orgId/delete -> IAM POST /orgs/:orgId/delete (organization:delete, a recent sign-in): `{ data: { deleted } }`; 403 `reauthenticate: true` (the page asks in place, composables/useReauthGate.ts). */
import { readIamParams } from '../../../utils/bff/input'
import { ORG_ID_ERROR } from '../../../utils/bff/orgs'
import { defineBffHandler, relay } from '../../../utils/bff/respond'
import { callAuthedRoute } from '../../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const params = readIamParams(event, 'orgDelete', ORG_ID_ERROR)
  return relay(event, await callAuthedRoute(event, 'orgDelete', { params }))
})
