/**
 * The gateway's calls to OAuth providers go through the outbound guard (shared/outbound.ts):
 * loopback only for a URL that names a loopback host over http (a local demo provider), ranges the
 * config's `outbound.allowAddresses` opens, and nothing else that is not public.
 */
import { mkdtempSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { customFetch } from 'oauth4webapi'
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import type { OutboundRefused } from '../../shared/outbound'
import { parseGatewayConfig } from '../../server/utils/gateway-config'

let options: typeof import('../../server/utils/oauth/http-options')
/** the refusal class of the module instance `options` uses (a fresh one per file: see beforeAll) */
let Refused: typeof OutboundRefused
const servers: Server[] = []
const connections = { first: 0, second: 0 }
let firstPort: number
let secondPort: number

async function listen(host: string, count: keyof typeof connections): Promise<number> {
  const server = createServer((_req, res) => res.end('{"issuer":"x"}'))
  server.on('connection', () => {
    connections[count] += 1
  })
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, host, resolve))
  return (server.address() as AddressInfo).port
}

const configBefore = process.env.GATEWAY_CONFIG
afterAll(() => {
  if (configBefore === undefined) delete process.env.GATEWAY_CONFIG
  else process.env.GATEWAY_CONFIG = configBefore
  vi.resetModules()
})

beforeAll(async () => {
  firstPort = await listen('127.0.0.1', 'first')
  secondPort = await listen('127.0.0.2', 'second')
  const dir = mkdtempSync(join(tmpdir(), 'oauth-outbound-'))
  const path = join(dir, 'gateway.json')
  writeFileSync(path, JSON.stringify({ outbound: { allowAddresses: ['127.0.0.2'] } }))
  // the config is read once per module instance, and workers run file after file (vitest.config.ts,
  // isolate: false): a fresh instance of the modules for this file's config, which goes again after it
  vi.resetModules()
  process.env.GATEWAY_CONFIG = path
  options = await import('../../server/utils/oauth/http-options')
  Refused = (await import('../../shared/outbound')).OutboundRefused
})
afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  }
})
beforeEach(() => {
  connections.first = 0
  connections.second = 0
})

async function call(url: string): Promise<Response | OutboundRefused> {
  const fetcher = options.requestOptionsFor(url)[customFetch]
  try {
    return await fetcher(url, { method: 'GET', headers: {}, redirect: 'manual', signal: AbortSignal.timeout(5000) })
  } catch (error) {
    const cause = (error as TypeError).cause
    if (cause instanceof Refused) return cause
    throw error
  }
}

describe('calls to OAuth providers', () => {
  it('reach a provider whose URL names a loopback host over http (a local demo provider)', async () => {
    const res = await call(`http://127.0.0.1:${firstPort}/.well-known/openid-configuration`)
    expect(res).toBeInstanceOf(Response)
    expect((res as Response).status).toBe(200)
    expect(connections.first).toBe(1)
  })

  it('do not reach loopback through an https URL, which no local demo provider uses', async () => {
    const res = await call(`https://127.0.0.1:${firstPort}/.well-known/openid-configuration`)
    expect(res).toBeInstanceOf(Refused)
    expect((res as OutboundRefused).reason).toBe('address_refused')
    expect(connections.first).toBe(0)
  })

  it('do not reach private or link-local addresses', async () => {
    for (const url of ['https://10.0.0.1/.well-known/openid-configuration', 'https://169.254.169.254/latest/meta-data/']) {
      const res = await call(url)
      expect((res as OutboundRefused).reason).toBe('address_refused')
    }
  })

  it('reach a range the config opens on purpose', async () => {
    // the server speaks plain http, so the TLS handshake fails: what matters is that it was reached
    const res = await call(`https://127.0.0.2:${secondPort}/.well-known/openid-configuration`)
    expect((res as OutboundRefused).reason).toBe('network')
    expect(connections.second).toBe(1)
  })
})

describe('outbound.allowAddresses', () => {
  it('takes IP addresses and CIDR ranges, and refuses anything else', () => {
    expect(parseGatewayConfig({ outbound: { allowAddresses: ['10.0.0.0/8', '192.168.1.5'] } }).outbound.allowAddresses).toEqual(['10.0.0.0/8', '192.168.1.5'])
    expect(() => parseGatewayConfig({ outbound: { allowAddresses: ['intranet'] } })).toThrow(/expected an IP address or CIDR/)
    expect(parseGatewayConfig({}).outbound.allowAddresses).toEqual([])
  })
})
