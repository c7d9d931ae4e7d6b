import { ROUTES } from '../../contract/routes'
import { issueBotChallenge } from '../../features/bot-challenge/bot-proof'
import { defineRoute } from '../../http/route'
import { okEnvelope } from '../../http/respond'

/**
 * GET /auth/bot-challenge: what the page needs for the check (`enabled: false` when it is off): a
 * proof-of-work challenge to solve, or the site key of the Turnstile-style widget to render.
 */
export default defineRoute(ROUTES.botChallenge, [], async ({ ctx }) => {
  const { enabled, provider, turnstile } = ctx.config.botChallenge
  if (!enabled) return okEnvelope({ enabled: false as const })
  // the config refuses provider "turnstile" without a site key
  if (provider === 'turnstile') return okEnvelope({ enabled: true as const, provider, siteKey: turnstile.siteKey! })
  return okEnvelope({ enabled: true as const, provider, challenge: await issueBotChallenge(ctx) })
})
