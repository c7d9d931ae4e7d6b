import { createServer, request, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
// test-utils' fetch takes a path on the gateway; the proxy check below uses the global one
import { $fetch, fetch as gatewayFetch } from '@nuxt/test-utils/e2e'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { setupGateway } from '../helpers/nuxt-gateway'
import { hmac, sharedBffIam } from '../helpers/shared-bff-iam'

// Another loopback address (all of 127/8 is local on Linux), not the one the HMAC exemption knows.
const PROXY_SOURCE = '127.0.0.2'

/**
 * A reverse proxy in front of the IAM that forwards the request target, headers and body unchanged
 * (a version 2 signature covers X-Forwarded-For, so a proxy may not rewrite it) and connects from
 * 127.0.0.2. The IAM sees that non-loopback-exempt peer as the client: GET /health is then not
 * HMAC-exempt (the exemption is for 127.0.0.1 and ::1 only), and only a correctly signed request
 * passes. Without it every test request would come from 127.0.0.1 and prove nothing about signing.
 */
async function startForwardingProxy(target: string): Promise<{ url: string; close(): Promise<void> }> {
  const { hostname, port } = new URL(target)
  const server: Server = createServer((req, res) => {
    const upstream = request({ hostname, port, method: req.method, path: req.url, headers: req.headers, localAddress: PROXY_SOURCE }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers)
      up.pipe(res)
    })
    upstream.on('error', () => res.writeHead(502).end())
    req.pipe(upstream)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

// the gateway project's shared IAM (HMAC version 2 required), reached through the proxy
const iam = sharedBffIam()
let proxy: Awaited<ReturnType<typeof startForwardingProxy>>

beforeAll(async () => {
  proxy = await startForwardingProxy(iam.url)
})
afterAll(async () => {
  await proxy?.close()
})
// first behind the proxy with the right secret; the tests after that restart it with another IAM config
const gateway = await setupGateway({ config: () => ({ iam: { url: proxy.url, hmac } }) })

describe('GET /api/health', () => {
  it('the IAM behind the proxy refuses an unsigned /health (so a 200 below proves the signature)', async () => {
    const res = await fetch(`${proxy.url}/health`)
    expect(res.status).toBe(401)
  })

  it('answers 200 { gateway: "ok", iam: "ok" } when the IAM accepts the signed request', async () => {
    const res = await gatewayFetch('/api/health')
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ gateway: 'ok', iam: 'ok' })
    expect(await $fetch('/api/health')).toEqual({ gateway: 'ok', iam: 'ok' })
  })

  it('answers 503 { gateway: "ok", iam: "unreachable" } when the IAM refuses the gateway secret', async () => {
    await gateway.restart({ iam: { url: proxy.url, hmac: { ...hmac, sharedSecret: 'not-the-shared-secret-0123456789abcdefgh' } } })
    const res = await gatewayFetch('/api/health')
    expect(res.status).toBe(503)
    expect(await res.json()).toEqual({ gateway: 'ok', iam: 'unreachable' })
  })

  it('answers 503 { gateway: "ok", iam: "unreachable" } when the IAM is down', async () => {
    await gateway.restart({ iam: { url: `http://127.0.0.1:${await closedPort()}`, hmac, timeoutMs: 2000 } })
    const res = await gatewayFetch('/api/health')
    expect(res.status).toBe(503)
    expect(await res.json()).toEqual({ gateway: 'ok', iam: 'unreachable' })
  })
})
