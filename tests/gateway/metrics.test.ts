import { fetch } from '@nuxt/test-utils/e2e'
import { describe, expect, it } from 'vitest'
import { setupGateway } from '../helpers/nuxt-gateway'
import { LOOPBACK_SCRAPER, moved, scrapeMetrics } from '../helpers/prometheus'
import { hmac, sharedBffIam } from '../helpers/shared-bff-iam'

const TOKEN = 'gateway-metrics-token-0123456789-abcdefgh'
const REMOTE = '203.0.113.9'

// the gateway project's shared IAM: the gateway's own metrics are counted here, not the IAM's
const iam = sharedBffIam()
const gateway = await setupGateway({
  config: () => ({ iam: { url: iam.url, hmac }, proxy: { trust: true, ipToTrust: '127.0.0.1' }, metrics: { token: TOKEN } }),
})

// the gateway trusts a proxy on loopback: a scrape names its client (::1, on the default allow-list)
const scrape = (headers: Record<string, string> = LOOPBACK_SCRAPER) => scrapeMetrics(gateway.url, headers)

describe('gateway GET /metrics', () => {
  it('counts its requests by route template and status, and its IAM calls by IAM route and outcome', async () => {
    const before = await scrape()
    expect(before.types.get('gateway_process_cpu_user_seconds_total')).toBe('counter')
    const res = await fetch('/api/health')
    expect(res.status).toBe(200)
    const after = await scrape()
    expect(moved(before, after, 'gateway_http_requests_total', { method: 'GET', route: '/api/health', status: '200' })).toBe(1)
    expect(moved(before, after, 'gateway_iam_calls_total', { method: 'GET', route: '/health', outcome: '200' })).toBe(1)
    expect(moved(before, after, 'gateway_iam_call_duration_seconds_count', { method: 'GET', route: '/health', outcome: '200' })).toBe(1)
  })

  it('counts OAuth outcomes by code', async () => {
    const before = await scrape()
    const res = await fetch('/oauth/no-such-provider', { redirect: 'manual' })
    expect(res.status).toBe(404)
    const after = await scrape()
    expect(moved(before, after, 'gateway_oauth_outcomes_total', { outcome: 'unknown_provider' })).toBe(1)
  })

  it('refuses a client outside metrics.allow with 403, admits the bearer token, refuses a wrong one', async () => {
    const outside = await fetch('/metrics', { headers: { 'x-forwarded-for': REMOTE } })
    expect(outside.status).toBe(403)
    expect(await outside.json()).toEqual({ error: 'Forbidden' })
    await scrape({ 'x-forwarded-for': REMOTE, authorization: `Bearer ${TOKEN}` })
    const wrong = await fetch('/metrics', { headers: { 'x-forwarded-for': REMOTE, authorization: `Bearer ${TOKEN}-` } })
    expect(wrong.status).toBe(403)
  })

  it('refuses a request of the trusted loopback proxy that names no client, and admits the bearer token on it', async () => {
    // it resolves to the proxy's 127.0.0.1, on the default allow-list: where it entered, not who sent it
    const unnamed = await fetch('/metrics')
    expect(unnamed.status).toBe(403)
    expect(await unnamed.json()).toEqual({ error: 'Forbidden' })
    const withToken = await scrape({ authorization: `Bearer ${TOKEN}` })
    expect(withToken.types.get('gateway_http_requests_total')).toBe('counter')
  })
})
