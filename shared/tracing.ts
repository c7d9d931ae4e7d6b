/**
 * OpenTelemetry tracing for both apps, off unless an OTLP endpoint is configured
 * (docs/operations.md, "Tracing"). Only `@opentelemetry/api` (no-op until an SDK registers) is
 * imported here: the SDK, the exporter and the context manager are imported by tracing-sdk.ts when
 * tracing starts, so a process without an endpoint never loads them.
 *
 * Nitro bundles both apps, so require hooks (auto-instrumentation) never see pg, ioredis or
 * node:http: the spans are made at our own seams (the request handler of each app, the IAM client,
 * Kysely's statement log and the direct statements, the store, Argon2, the mailer), each guarded by
 * `tracingActive`, so with tracing off an instrumentation point is one branch on a boolean.
 *
 * What a span never carries: a raw path or query string (the route template instead: ids and
 * magic-link tokens travel there), a header, a statement's parameter values or text, a store key,
 * an address, a password or a mail recipient.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span } from '@opentelemetry/api'

/** Environment variables that turn tracing on (the OTLP exporter's own, OpenTelemetry specification). */
export function tracingConfigured(env: Record<string, string | undefined>): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false
  return Boolean(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim())
}

/**
 * True once startTracing ran in this process: the one check every instrumentation point makes.
 * A live binding (ES modules), so importers read the current value.
 */
// eslint-disable-next-line import/no-mutable-exports -- read on hot paths: a property or call would cost more than a binding
export let tracingActive = false

const tracer = () => trace.getTracer('identity-platform')

let shutdown: (() => Promise<void>) | undefined

/**
 * Loads the SDK and registers it (tracing-sdk.ts). Spans started before the import finished are
 * the API's non-recording ones. A failure to set up is reported to `onError` and leaves the app
 * running untraced.
 */
export function startTracing(defaultServiceName: string, onError: (error: Error) => void): void {
  if (tracingActive) return
  tracingActive = true
  import('./tracing-sdk')
    .then(({ registerTracing }) => registerTracing({ defaultServiceName, env: process.env }))
    .then((stop) => {
      shutdown = stop
    })
    .catch((error: Error) => onError(error))
}

/** Exports what is buffered and stops the SDK (the apps' close hooks). */
export async function stopTracing(): Promise<void> {
  await shutdown?.()
}

// RFC 9110 section 9 methods; anything else is `_OTHER` (OpenTelemetry HTTP semantic conventions), so
// a client cannot grow the set of span names
const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'CONNECT', 'OPTIONS', 'TRACE', 'PATCH'])
const methodOf = (method: string | undefined) => (method && KNOWN_METHODS.has(method) ? method : '_OTHER')

/**
 * Runs `handle` inside a server span for one request. `trustParent`: continue the caller's trace
 * from its W3C `traceparent` (the IAM, whose callers are the gateway); the gateway, facing
 * browsers, starts its own traces, so nobody outside can force sampling or join a trace.
 * `routeOf` is read when the answer is sent: the router has matched by then.
 */
export function inServerSpan<T>(req: IncomingMessage, res: ServerResponse, options: { trustParent: boolean; routeOf: () => string }, handle: () => T): T {
  const parent = options.trustParent ? propagation.extract(ROOT_CONTEXT, req.headers) : ROOT_CONTEXT
  const method = methodOf(req.method)
  const span = tracer().startSpan(method, { kind: SpanKind.SERVER, attributes: { 'http.request.method': method } }, parent)
  res.once('close', () => {
    const route = options.routeOf()
    const status = res.statusCode
    span.updateName(`${method} ${route}`)
    span.setAttributes({ 'http.route': route, 'http.response.status_code': status })
    if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR })
    if (!res.writableFinished) span.setAttribute('http.aborted', true)
    span.end()
  })
  return context.with(trace.setSpan(parent, span), handle)
}

/** A client span begun: the headers that carry it (W3C `traceparent`) and its end. */
export interface ClientSpan {
  headers: Record<string, string>
  end(outcome: number | 'unavailable'): void
}

/**
 * A client span for one outbound HTTP call under the current span, with the propagation headers to
 * send. The peer is named by `peer` (a fixed service name), never by the URL or path.
 */
export function startClientSpan(method: string, peer: string): ClientSpan {
  const known = methodOf(method)
  const span = tracer().startSpan(known, { kind: SpanKind.CLIENT, attributes: { 'http.request.method': known, 'peer.service': peer } })
  const headers: Record<string, string> = {}
  propagation.inject(trace.setSpan(context.active(), span), headers)
  return {
    headers,
    end(outcome) {
      if (outcome === 'unavailable') {
        span.setStatus({ code: SpanStatusCode.ERROR, message: 'unavailable' })
      } else {
        span.setAttribute('http.response.status_code', outcome)
        if (outcome >= 500) span.setStatus({ code: SpanStatusCode.ERROR })
      }
      span.end()
    },
  }
}

function failed(span: Span, error: unknown): void {
  // the error's type only: a message can carry a key, an address or a statement's values
  span.setAttribute('error.type', error instanceof Error ? error.name : typeof error)
  span.setStatus({ code: SpanStatusCode.ERROR })
}

/** Runs `fn` in an internal (or `kind`) span under the current one; its rejection marks the span. */
export async function withSpan<T>(name: string, attributes: Attributes, fn: () => Promise<T>, kind: SpanKind = SpanKind.INTERNAL): Promise<T> {
  if (!tracingActive) return fn()
  return tracer().startActiveSpan(name, { kind, attributes }, async (span) => {
    try {
      return await fn()
    } catch (error) {
      failed(span, error)
      throw error
    } finally {
      span.end()
    }
  })
}

/**
 * A span for work that already finished (Kysely reports a statement after it ran, with its
 * duration), under the current span.
 */
export function recordFinishedSpan(name: string, attributes: Attributes, durationMs: number, kind: SpanKind, error?: unknown): void {
  const endTime = Date.now()
  const span = tracer().startSpan(name, { kind, attributes, startTime: endTime - durationMs })
  if (error !== undefined) failed(span, error)
  span.end(endTime)
}

/** The current trace's ids for a log line (`trace_id`, `span_id`); empty outside a sampled span. */
export function traceLogFields(active: Context = context.active()): { trace_id?: string; span_id?: string } {
  const span = trace.getSpan(active)
  if (!span) return {}
  const { traceId, spanId, traceFlags } = span.spanContext()
  // an unsampled trace is exported by nobody: an id that leads nowhere is left out
  return traceFlags & 1 ? { trace_id: traceId, span_id: spanId } : {}
}
