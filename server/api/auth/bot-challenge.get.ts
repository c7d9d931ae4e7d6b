/**
 * GET /api/auth/bot-challenge -> IAM GET /auth/bot-challenge: what the sign-up, reset, email sign-in
 * and (after failures) sign-in forms need for the bot check: a proof-of-work challenge, or the site
 * key of a Turnstile-style widget, to which the BFF adds the script the page loads for it (gateway
 * config `botChallenge.turnstileOrigin`, whose origin those pages' CSP allows; absent, none).
 */
import { useGatewayConfig } from '../../utils/gateway-config'
import { callIamRoute } from '../../utils/bff/iam-call'
import { defineBffHandler, relay } from '../../utils/bff/respond'

export default defineBffHandler(async (event) => {
  const body = relay(event, await callIamRoute(event, 'botChallenge', {}))
  const data = body.data as { provider?: unknown } | undefined
  const origin = useGatewayConfig().botChallenge.turnstileOrigin
  if (data?.provider !== 'turnstile' || !origin) return body
  // explicit rendering: the page puts the widget where its form says "Checking your browser..."
  return { ...body, data: { ...data, scriptUrl: `${new URL(origin).origin}/turnstile/v0/api.js?render=explicit` } }
})
