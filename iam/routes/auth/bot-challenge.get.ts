import { ROUTES } from '../../contract/routes'
import { issueBotChallenge } from '../../features/bot-challenge/bot-proof'
import { defineRoute } from '../../http/route'
import { okEnvelope } from '../../http/respond'

/** GET /auth/bot-challenge: a proof-of-work challenge for the browser to solve (`enabled: false` when the check is off). */
export default defineRoute(ROUTES.botChallenge, [], async ({ ctx }) => {
  if (!ctx.config.botChallenge.enabled) return okEnvelope({ enabled: false as const })
  return okEnvelope({ enabled: true as const, challenge: await issueBotChallenge(ctx) })
})
