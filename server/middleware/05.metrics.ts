/**
 * Counts every answer for /metrics once it is sent: method, route template and status. The label
 * is the router's matched template (pages share the renderer's), or `unmatched`, never the raw
 * path, so scans of random URLs create no series.
 */
import { performance } from 'node:perf_hooks'
import { defineEventHandler } from 'h3'
import { observeGatewayRequest } from '../utils/metrics'

export default defineEventHandler((event) => {
  const started = performance.now()
  const { req, res } = event.node
  res.once('close', () => {
    const route = event.context.matchedRoute?.path ?? 'unmatched'
    observeGatewayRequest({ method: req.method ?? 'GET', route, status: res.statusCode, seconds: (performance.now() - started) / 1000 })
  })
})
