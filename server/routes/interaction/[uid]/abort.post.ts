/** POST /interaction/:uid/abort -> IAM POST /auth/oidc/interaction/:uid/abort: the app gets access_denied. */
import { INTERACTION_COOKIES, interactionReply, interactionUid } from '../../../utils/bff/interaction'
import { callIamRoute } from '../../../utils/bff/iam-call'
import { defineBffHandler } from '../../../utils/bff/respond'

export default defineBffHandler(async (event) => {
  const uid = interactionUid(event)
  return interactionReply(event, uid, 'oidcInteractionAbort', await callIamRoute(event, 'oidcInteractionAbort', { params: { uid }, cookies: [...INTERACTION_COOKIES] }))
})
