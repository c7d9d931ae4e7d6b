/** Test build only: counts requests as they arrive and as their connections finish answering. */
import { defineNitroPlugin } from 'nitropack/runtime'
import { routePath } from '../../contract/route-rules'
import { testRoutesEnabled } from '../enabled'
import { COUNTER_PATH, requestCounter } from '../lib/request-counter'

export default defineNitroPlugin((nitroApp) => {
  if (!testRoutesEnabled(process.env)) return
  nitroApp.hooks.hook('request', (event) => {
    if (routePath(event.path) === COUNTER_PATH) return
    requestCounter.received++
    requestCounter.inFlight++
    event.node.res.once('close', () => requestCounter.inFlight--)
  })
})
