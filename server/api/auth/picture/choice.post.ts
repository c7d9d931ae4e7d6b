/** POST /api/auth/picture/choice (signed in) `{ source: "gravatar" | "none" }` -> IAM POST /auth/picture/choice (checked against the IAM route's schema). */
import { readIamBody } from '../../../utils/bff/input'
import { defineBffHandler, relay } from '../../../utils/bff/respond'
import { callAuthedRoute } from '../../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const { body } = await readIamBody(event, 'choosePicture')
  return relay(event, await callAuthedRoute(event, 'choosePicture', { body }))
})
