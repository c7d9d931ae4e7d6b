/**
 * OpenTelemetry tracing of the gateway, when an OTLP endpoint is configured (docs/operations.md,
 * "Tracing"): a server span around each request, named by the route template. The gateway faces
 * browsers, so it starts its own traces and never continues an incoming `traceparent`
 * (shared/tracing.ts inServerSpan). Without an endpoint this plugin does nothing and the SDK is
 * never loaded.
 */
import { startTracing, stopTracing, inServerSpan, tracingConfigured } from '../../shared/tracing'
import { useGatewayLog } from '../utils/log'

export default defineNitroPlugin((nitroApp) => {
  if (!tracingConfigured(process.env)) return
  startTracing('identity-platform-gateway', (error) => useGatewayLog().error('tracing could not start', { err: error }))
  // the h3 app's handler, wrapped as Nitro itself wraps it for its async context: every middleware
  // and route runs inside the span, so the IAM client's span (server/utils/iam.ts) is its child
  const { h3App } = nitroApp
  const handle = h3App.handler
  h3App.handler = (event) =>
    inServerSpan(event.node.req, event.node.res, { trustParent: false, routeOf: () => event.context.matchedRoute?.path ?? 'unmatched' }, () => handle(event))
  nitroApp.hooks.hook('close', () => stopTracing())
})
