/**
 * The OpenTelemetry SDK set-up, imported by shared/tracing.ts only when an OTLP endpoint is
 * configured. OTLP over HTTP with JSON bodies; the exporter reads its own variables
 * (`OTEL_EXPORTER_OTLP_ENDPOINT` + `/v1/traces`, `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` as given,
 * `..._HEADERS`, `..._TIMEOUT`). Read here, as the OpenTelemetry specification's environment
 * variables name them: `OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES`, `OTEL_TRACES_SAMPLER` and
 * `OTEL_TRACES_SAMPLER_ARG`, `OTEL_BSP_SCHEDULE_DELAY` (the SDK's constructors no longer read them).
 *
 * The collector is the operator's own service named in the environment, usually on a private
 * network or loopback: like the API proxy's upstream it does not go through shared/outbound.ts,
 * which would refuse exactly those addresses (docs/architecture.md, "Outbound calls").
 */
import { context, propagation, trace } from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import { W3CTraceContextPropagator } from '@opentelemetry/core'
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http'
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources'
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
  type Sampler,
} from '@opentelemetry/sdk-trace'

type Env = Record<string, string | undefined>

/** The sampler `OTEL_TRACES_SAMPLER` names (default parentbased_always_on); an unknown name is the default. */
export function samplerFromEnv(env: Env): Sampler {
  const ratioArg = Number(env.OTEL_TRACES_SAMPLER_ARG ?? '1')
  const ratio = Number.isFinite(ratioArg) && ratioArg >= 0 && ratioArg <= 1 ? ratioArg : 1
  switch (env.OTEL_TRACES_SAMPLER?.trim().toLowerCase()) {
    case 'always_on':
      return new AlwaysOnSampler()
    case 'always_off':
      return new AlwaysOffSampler()
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(ratio)
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() })
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio) })
    default:
      return new ParentBasedSampler({ root: new AlwaysOnSampler() })
  }
}

/** `OTEL_BSP_SCHEDULE_DELAY` in ms (default 5000, the specification's). */
function scheduledDelayMs(env: Env): number {
  const value = Number(env.OTEL_BSP_SCHEDULE_DELAY)
  return Number.isInteger(value) && value > 0 ? value : 5000
}

/** Registers the provider, the context manager and the W3C propagator globally; returns the shutdown (flushes). */
export function registerTracing(options: { defaultServiceName: string; env: Env }): () => Promise<void> {
  const { env } = options
  const serviceName = env.OTEL_SERVICE_NAME?.trim() || options.defaultServiceName
  const resource = defaultResource()
    .merge(detectResources({ detectors: [envDetector] }))
    .merge(resourceFromAttributes({ 'service.name': serviceName }))
  const provider = new TracerProvider({
    resource,
    sampler: samplerFromEnv(env),
    spanProcessors: [new BatchSpanProcessor({ exporter: new OTLPTraceExporter(), scheduledDelayMillis: scheduledDelayMs(env) })],
  })
  // AsyncLocalStorage carries the current span through the awaits of a request
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
  propagation.setGlobalPropagator(new W3CTraceContextPropagator())
  trace.setGlobalTracerProvider(provider)
  return () => provider.shutdown()
}
