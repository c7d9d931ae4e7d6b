/** POST /interaction/:uid/consent (signed in) -> IAM POST /auth/oidc/interaction/:uid/consent: allow the app. */
import { INTERACTION_COOKIES, interactionReply, interactionUid } from '../../../utils/bff/interaction'
import { defineBffHandler } from '../../../utils/bff/respond'
import { callAuthedRoute } from '../../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const uid = interactionUid(event)
  return interactionReply(event, uid, 'oidcInteractionConsent', await callAuthedRoute(event, 'oidcInteractionConsent', { params: { uid } }, INTERACTION_COOKIES))
})
