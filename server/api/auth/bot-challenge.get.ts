/** GET /api/auth/bot-challenge -> IAM GET /auth/bot-challenge: the proof-of-work challenge the sign-up, reset and email sign-in forms solve. */
import { callIamRoute } from '../../utils/bff/iam-call'
import { defineBffHandler, relay } from '../../utils/bff/respond'

export default defineBffHandler(async (event) => relay(event, await callIamRoute(event, 'botChallenge', {})))
