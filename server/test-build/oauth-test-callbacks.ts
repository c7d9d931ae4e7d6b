/**
 * Test build only (GATEWAY_TEST_BUILD=1 adds it in nuxt.config.ts; production bundles never
 * contain it): registers the provider callbacks the gateway tests exercise (function callbacks
 * cannot come from the JSON config). Inert unless GATEWAY_TEST_OAUTH_CALLBACKS=1, and never in
 * production (NODE_ENV=production refuses it even with the variable set).
 */
import { defineNitroPlugin } from 'nitropack/runtime'
import { isProduction } from '../utils/oauth/cookie-secret'
import { registerTestCallbacks } from './oauth-callbacks'

export default defineNitroPlugin(() => {
  const { env } = process
  if (env['GATEWAY_TEST_OAUTH_CALLBACKS'] !== '1') return
  if (isProduction()) throw new Error('GATEWAY_TEST_OAUTH_CALLBACKS is a test switch and is refused in production')
  registerTestCallbacks()
})
