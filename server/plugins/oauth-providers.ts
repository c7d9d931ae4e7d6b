/**
 * Start-up check of the OAuth setup: the gateway config parses (a bad provider entry stops the
 * start with a message naming the key) and a state-cookie secret exists (required in production).
 * Plugins that register provider callbacks are checked as they register.
 */
import { useCookieSecret } from '../utils/oauth/cookie-secret'
import { useGatewayConfig } from '../utils/gateway-config'

export default defineNitroPlugin(() => {
  useGatewayConfig()
  useCookieSecret()
})
