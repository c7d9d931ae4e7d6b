/**
 * The gateway's direct lane (server/utils/direct-lane.ts): the h3 app's handler, wrapped as
 * server/plugins/tracing.ts and Nitro itself wrap it. Runs before the tracing plugin (file-name
 * order), so a lane's answer is traced like any other.
 *
 * The BFF's lane is an h3 app of its own (h3's createApp and createRouter): the very route handlers
 * Nitro's router runs for these paths, under the same route templates (the metrics' label, the
 * router parameters the handlers read), each after the frame; h3 sends what they return as on the
 * page path. A request its router does not match reaches the page path untouched (the frame runs
 * only once a route matched); laneOf() picks only paths without percent-encoding, so the page
 * path's own decoding finds the path as it came.
 */
import { createApp, createRouter, eventHandler, type EventHandler } from 'h3'
import session from '../api/auth/session.get'
import upstream from '../api/upstream/[name]/[...path]'
import { answerBffFault, answerProvider, BFF_LANE_ROUTES, laneFrame, laneOfEvent } from '../utils/direct-lane'

export default defineNitroPlugin((nitroApp) => {
  const framed = (handler: EventHandler) =>
    eventHandler(async (event) => {
      event.context.onDirectLane = true
      return (await laneFrame(event)) ?? handler(event)
    })
  const router = createRouter()
  router.get(BFF_LANE_ROUTES.session, framed(session))
  router.use(BFF_LANE_ROUTES.upstream, framed(upstream))
  router.use(BFF_LANE_ROUTES.upstreamBase, framed(upstream))
  const bff = createApp()
  bff.use(router)

  const { h3App } = nitroApp
  const handle = h3App.handler
  h3App.handler = (event) => {
    const lane = laneOfEvent(event)
    if (lane === 'provider') return answerProvider(event)
    if (lane === 'bff') {
      return bff.handler(event).catch((error: unknown) => (event.context.onDirectLane === true ? answerBffFault(event, error) : handle(event)))
    }
    return handle(event)
  }
})
