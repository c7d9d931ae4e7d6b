/** POST /api/orgs/:orgId/sso -> IAM POST /orgs/:orgId/sso (owners:manage): creates or replaces the SAML connection. */
import { readIamBody, readIamParams } from '../../../utils/bff/input'
import { ORG_ID_ERROR } from '../../../utils/bff/orgs'
import { defineBffHandler, relay } from '../../../utils/bff/respond'
import { callAuthedRoute } from '../../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const params = readIamParams(event, 'orgSsoSet', ORG_ID_ERROR)
  const { body } = await readIamBody(event, 'orgSsoSet')
  return relay(event, await callAuthedRoute(event, 'orgSsoSet', { params, body }))
})
