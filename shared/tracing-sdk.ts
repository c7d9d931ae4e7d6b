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
import type { Sampler } from '@opentelemetry/sdk-trace'

// The SDK's packages are imported when tracing starts, by name: a bundler inlines a dynamic
// import of one of our own modules into the chunk that imports it (Nitro did), which would load
// them at every start; a package stays an import of its own.
const loadSdk = () => import('@opentelemetry/sdk-trace')

type Env = Record<string, string | undefined>

/** The sampler `OTEL_TRACES_SAMPLER` names (default parentbased_always_on); an unknown name is the default. */
export function samplerFromEnv(sdk: Awaited<ReturnType<typeof loadSdk>>, env: Env): Sampler {
  const { AlwaysOffSampler, AlwaysOnSampler, ParentBasedSampler, TraceIdRatioBasedSampler } = sdk
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

/** Registers the provider, the context manager and the W3C propagator globally; resolves with the shutdown (flushes). */
export async function registerTracing(options: { defaultServiceName: string; env: Env }): Promise<() => Promise<void>> {
  const { env } = options
  const [sdk, { AsyncLocalStorageContextManager }, { W3CTraceContextPropagator }, { OTLPTraceExporter }, resources] = await Promise.all([
    loadSdk(),
    import('@opentelemetry/context-async-hooks'),
    import('@opentelemetry/core'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
  ])
  const serviceName = env.OTEL_SERVICE_NAME?.trim() || options.defaultServiceName
  const resource = resources
    .defaultResource()
    .merge(resources.detectResources({ detectors: [resources.envDetector] }))
    .merge(resources.resourceFromAttributes({ 'service.name': serviceName }))
  const provider = new sdk.TracerProvider({
    resource,
    sampler: samplerFromEnv(sdk, env),
    spanProcessors: [new sdk.BatchSpanProcessor({ exporter: new OTLPTraceExporter(), scheduledDelayMillis: scheduledDelayMs(env) })],
  })
  // AsyncLocalStorage carries the current span through the awaits of a request
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
  propagation.setGlobalPropagator(new W3CTraceContextPropagator())
  trace.setGlobalTracerProvider(provider)
  return () => provider.shutdown()
}
