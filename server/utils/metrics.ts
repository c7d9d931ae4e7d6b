/**
 * The gateway's Prometheus metrics: one prom-client registry per process with
 * its requests by route template and status, its IAM calls (route template, outcome, latency) and
 * the OAuth flow's outcomes. Read by GET /metrics (server/routes/metrics.get.ts).
 */
import { performance } from 'node:perf_hooks'
import type { H3Event } from 'h3'
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client'
import { findRouteRule } from '../../iam/contract/route-rules'

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

function createGatewayMetrics() {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry, prefix: 'gateway_' })
  const registers = [registry]
  const labelNames = ['method', 'route', 'status'] as const
  const requests = new Counter({ name: 'gateway_http_requests_total', help: 'Requests answered, by method, route template and status', labelNames, registers })
  const latency = new Histogram({ name: 'gateway_http_request_duration_seconds', help: 'Request latency by method, route template and status', labelNames, buckets: LATENCY_BUCKETS, registers })
  const iamLabels = ['method', 'route', 'outcome'] as const
  const iamCalls = new Counter({ name: 'gateway_iam_calls_total', help: 'Calls to the IAM by route template and outcome (the status, or unavailable)', labelNames: iamLabels, registers })
  const iamLatency = new Histogram({ name: 'gateway_iam_call_duration_seconds', help: 'IAM call latency by route template and outcome', labelNames: iamLabels, buckets: LATENCY_BUCKETS, registers })
  const oauth = new Counter({ name: 'gateway_oauth_outcomes_total', help: 'OAuth sign-in flow answers: ok, or the error code', labelNames: ['outcome'] as const, registers })
  return { registry, requests, latency, iamCalls, iamLatency, oauth }
}

let metrics: ReturnType<typeof createGatewayMetrics> | undefined
const useMetrics = () => (metrics ??= createGatewayMetrics())

export const gatewayRegistry = (): Registry => useMetrics().registry

export function observeGatewayRequest(input: { method: string; route: string; status: number; seconds: number }): void {
  const { requests, latency } = useMetrics()
  const labels = { method: input.method, route: input.route, status: String(input.status) }
  requests.inc(labels)
  latency.observe(labels, input.seconds)
}

/**
 * Counts the request's answer once it is sent: method, route template and status. The label is the
 * router's matched template (pages share the renderer's), or `unmatched`, never the raw path, so
 * scans of random URLs create no series. Started by server/middleware/05.metrics.ts, and by the
 * gateway's direct lane (server/utils/direct-lane.ts) for the requests it answers.
 */
export function countAnswer(event: H3Event): void {
  const started = performance.now()
  const { req, res } = event.node
  res.once('close', () => {
    const route = event.context.matchedRoute?.path ?? 'unmatched'
    observeGatewayRequest({ method: req.method ?? 'GET', route, status: res.statusCode, seconds: (performance.now() - started) / 1000 })
  })
}

/** One IAM call; the path is labelled by its route-table template, never as called (ids, providers). */
export function observeIamCall(input: { method: string; path: string; outcome: number | 'unavailable'; seconds: number }): void {
  const { iamCalls, iamLatency } = useMetrics()
  const route = findRouteRule(input.method, input.path)?.path ?? 'other'
  const labels = { method: input.method, route, outcome: String(input.outcome) }
  iamCalls.inc(labels)
  iamLatency.observe(labels, input.seconds)
}

export function countOAuthOutcome(outcome: string): void {
  useMetrics().oauth.inc({ outcome })
}
