/**
 * OpenTelemetry tracing of the IAM, when an OTLP endpoint is configured (docs/operations.md,
 * "Tracing"): a server span around each request, continuing the gateway's trace from its W3C
 * `traceparent` (not a signed header, and it changes nothing the IAM decides: it only names the
 * parent of the spans). Statements, store operations, Argon2 and mail are spans under it
 * (iam/lib/tracing.ts). Without an endpoint this plugin does nothing and the SDK is never loaded.
 */
import { defineNitroPlugin } from 'nitropack/runtime'
import { inServerSpan, startTracing, stopTracing, tracingConfigured } from '../../shared/tracing'

export default defineNitroPlugin((nitroApp) => {
  if (!tracingConfigured(process.env)) return
  startTracing('identity-platform-iam', (error) => {
    process.stderr.write(`${JSON.stringify({ level: 'error', time: new Date().toISOString(), app: 'iam', msg: 'tracing could not start', err: error.message })}\n`)
  })
  // the h3 app's handler, wrapped as Nitro itself wraps it for its async context, so every
  // middleware, route and the work they start run inside the span
  const { h3App } = nitroApp
  const handle = h3App.handler
  // the route template as the request log and the metrics name it (middleware/10.request-context.ts)
  const routeOf = (event: Parameters<typeof handle>[0]) => event.context.routeRule?.path ?? event.context.matchedRoute?.path ?? 'unmatched'
  h3App.handler = (event) => inServerSpan(event.node.req, event.node.res, { trustParent: true, routeOf: () => routeOf(event) }, () => handle(event))
  // after the boot plugin's close hook (registered first), so spans of the last work are exported
  nitroApp.hooks.hook('close', () => stopTracing())
})
