/** POST /api/auth/profile (signed in) `{ name?, locale?, timeZone? }` -> IAM POST /auth/profile (the body is checked against the IAM route's schema, so `locale` and `timeZone` pass as sent and the IAM judges them). */
import { readIamBody } from '../../utils/bff/input'
import { defineBffHandler, relay } from '../../utils/bff/respond'
import { callAuthedRoute } from '../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const { body } = await readIamBody(event, 'updateProfile')
  return relay(event, await callAuthedRoute(event, 'updateProfile', { body }))
})
