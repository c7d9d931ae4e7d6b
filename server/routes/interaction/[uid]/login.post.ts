/** POST /interaction/:uid/login (signed in) -> IAM POST /auth/oidc/interaction/:uid/login: continue as this account. */
import { INTERACTION_COOKIES, interactionReply, interactionUid } from '../../../utils/bff/interaction'
import { defineBffHandler } from '../../../utils/bff/respond'
import { callAuthedRoute } from '../../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const uid = interactionUid(event)
  return interactionReply(event, uid, 'oidcInteractionLogin', await callAuthedRoute(event, 'oidcInteractionLogin', { params: { uid } }, INTERACTION_COOKIES))
})
