/** GET /interaction/:uid/details -> IAM GET /auth/oidc/interaction/:uid (what the app asks). */
import { INTERACTION_COOKIES, interactionUid } from '../../../utils/bff/interaction'
import { callIamRoute } from '../../../utils/bff/iam-call'
import { defineBffHandler, relay } from '../../../utils/bff/respond'

export default defineBffHandler(async (event) => {
  const uid = interactionUid(event)
  return relay(event, await callIamRoute(event, 'oidcInteraction', { params: { uid }, cookies: [...INTERACTION_COOKIES] }))
})
