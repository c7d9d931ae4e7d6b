/** Test build only: counts requests as they arrive and as their connections finish answering, and those that took Nitro's path. */
import { defineNitroPlugin } from 'nitropack/runtime'
import { routePath } from '../../contract/route-rules'
import { testRoutesEnabled } from '../enabled'
import { COUNTER_PATH, requestCounter } from '../lib/request-counter'

// Around the h3 app's handler, not on Nitro's 'request' hook: requests on the IAM's direct lane
// (iam/plugins/02.direct-lane.ts) skip that hook, and the test build's plugins run after the IAM's
// own, so this wraps the lane too and counts every request.
export default defineNitroPlugin((nitroApp) => {
  if (!testRoutesEnabled(process.env)) return
  nitroApp.hooks.hook('request', (event) => {
    if (routePath(event.path) !== COUNTER_PATH) requestCounter.nitroPath++
  })
  const { h3App } = nitroApp
  const handle = h3App.handler
  h3App.handler = (event) => {
    if (routePath(event.path) !== COUNTER_PATH) {
      requestCounter.received++
      requestCounter.inFlight++
      event.node.res.once('close', () => requestCounter.inFlight--)
    }
    return handle(event)
  }
})
