/**
 * The IAM's direct lane: the machine requests that come in the thousands a second (`GET /health`
 * from every probe and load balancer, and everything under the OpenID Provider's mount: token
 * grants, introspection, revocation, keys, userinfo) are answered by an h3 app of their own, which
 * runs the same four middleware and the same route handlers as Nitro's app, in the same order,
 * under the same route templates. What it leaves out is Nitro's work per request that no IAM
 * route uses: its `onRequest` set-up (the fetch helpers and error list of its event context), the
 * 'request', 'beforeResponse' and 'afterResponse' hooks (each a hookable call that makes a
 * `console.createTask`, listened to by nothing in a production build) and its route rules handler
 * (the IAM has none). docs/performance.md, "The IAM's direct lane", has what it saves.
 *
 * Public APIs only (h3's createApp, createRouter, lazyEventHandler; the app's `handler` field,
 * wrapped as plugins/01.error-status.ts, plugins/04.tracing.ts and Nitro itself wrap it). This
 * plugin runs after the first, so a lane request records the status set before an error as that
 * plugin does, and before the tracing plugin, so a lane request is traced like any other. An
 * error a lane handler throws leaves through Nitro's node listener to its error handler
 * (iam/error.ts), as on Nitro's path.
 *
 * Which requests: the raw path `/health`, and any path under `/oidc/` (the route re-checks that
 * it is canonical and answers 400 if not, on both paths). `service.directLane: false` sends every
 * request through Nitro's app; tests/iam/direct-lane.test.ts holds the two paths' answers, log
 * lines and metrics labels equal.
 */
import { createApp, createRouter, defineEventHandler, lazyEventHandler } from 'h3'
import { defineNitroPlugin } from 'nitropack/runtime'
import { iamBooted, useIam } from '../context'
import { OIDC_MOUNT } from '../contract/oidc-mount'
import { recordStatusBeforeError } from '../http/request'
import ready from '../middleware/00.ready'
import requestContext from '../middleware/10.request-context'
import hmac from '../middleware/20.hmac'
import requestRules from '../middleware/30.request-rules'
import health from '../routes/health.get'

/** The templates Nitro's file router gives these routes: the metrics' and the log's labels. */
const HEALTH_ROUTE = '/health'
const OIDC_ROUTE = `${OIDC_MOUNT}/**:path`

/** Whether the raw request target takes the lane. */
function onDirectLane(url: string): boolean {
  const query = url.indexOf('?')
  const path = query === -1 ? url : url.slice(0, query)
  return path === HEALTH_ROUTE || path.startsWith(`${OIDC_MOUNT}/`)
}

export default defineNitroPlugin(({ h3App }) => {
  const router = createRouter()
  router.get(HEALTH_ROUTE, health)
  // loaded with the provider on first use, as Nitro loads the route (the provider's chunk stays out of start-up)
  router.use(OIDC_ROUTE, lazyEventHandler(async () => (await import('../routes/oidc/[...path]')).default))
  const lane = createApp()
  for (const middleware of [ready, requestContext, hmac, requestRules]) lane.use(middleware)
  lane.use(router)

  const handle = h3App.handler
  if (typeof handle !== 'function') throw new TypeError('iam/plugins/02.direct-lane.ts: the h3 app has no handler to wrap')
  h3App.handler = defineEventHandler(async (event) => {
    // a request that arrives while the IAM boots waits for it on Nitro's path (middleware 00)
    if (!onDirectLane(event.node.req.url ?? '/') || !iamBooted() || !useIam().config.service.directLane) return handle(event)
    try {
      return await lane.handler(event)
    } catch (error) {
      recordStatusBeforeError(event)
      throw error
    }
  })
})
