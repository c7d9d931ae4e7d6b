import { describe, expect, it } from 'vitest'
import { isProxyWithoutClient } from '../../shared/ip'
import { createIpAllowList, DEFAULT_METRICS_ALLOW, isAllowEntry, mayReadMetrics } from '../../shared/metrics-access'

const TOKEN = 'metrics-token-0123456789-abcdefghijklmnop'
const loopbackOnly = createIpAllowList(DEFAULT_METRICS_ALLOW)

describe('the /metrics allow-list', () => {
  it('admits loopback by default, IPv4-mapped loopback included, and nothing else', () => {
    expect(loopbackOnly('127.0.0.1')).toBe(true)
    expect(loopbackOnly('::ffff:127.0.0.1')).toBe(true)
    expect(loopbackOnly('::1')).toBe(true)
    expect(loopbackOnly('127.0.0.2')).toBe(false)
    expect(loopbackOnly('203.0.113.9')).toBe(false)
  })

  it('admits the addresses of a CIDR and no others', () => {
    const allowed = createIpAllowList(['10.1.0.0/16', '2001:db8::/32'])
    expect(allowed('10.1.255.3')).toBe(true)
    expect(allowed('10.2.0.1')).toBe(false)
    expect(allowed('2001:db8:ffff::1')).toBe(true)
    expect(allowed('2001:db9::1')).toBe(false)
    expect(allowed('not an ip')).toBe(false)
  })

  it('accepts only IPs and CIDRs as entries', () => {
    for (const entry of ['10.0.0.1', '10.0.0.0/8', '::1', 'fd00::/8']) expect(isAllowEntry(entry)).toBe(true)
    for (const entry of ['10.0.0.0/33', '::/129', '10.0.0.0/8/1', 'localhost', '10.0.0.0/x', '']) expect(isAllowEntry(entry)).toBe(false)
    expect(() => createIpAllowList(['example.com'])).toThrow(/example\.com/)
  })
})

describe('who may read /metrics', () => {
  const base = { isAllowedIp: loopbackOnly, token: TOKEN, proxyWithoutClient: false }
  it('an allowed address without credentials', () => {
    expect(mayReadMetrics({ ...base, clientIp: '127.0.0.1', authorization: undefined })).toBe(true)
    expect(mayReadMetrics({ ...base, clientIp: '203.0.113.9', authorization: undefined })).toBe(false)
  })
  it('the right bearer token from anywhere; a wrong or foreign credential nowhere', () => {
    expect(mayReadMetrics({ ...base, clientIp: '203.0.113.9', authorization: `Bearer ${TOKEN}` })).toBe(true)
    expect(mayReadMetrics({ ...base, clientIp: '203.0.113.9', authorization: `Bearer ${TOKEN.slice(1)}` })).toBe(false)
    expect(mayReadMetrics({ ...base, clientIp: '127.0.0.1', authorization: `Bearer ${TOKEN}x` })).toBe(false)
    expect(mayReadMetrics({ ...base, clientIp: '127.0.0.1', authorization: 'Basic dXNlcjpwYXNz' })).toBe(false)
  })
  it('no token configured: every bearer is refused', () => {
    expect(mayReadMetrics({ ...base, token: undefined, clientIp: '203.0.113.9', authorization: 'Bearer x' })).toBe(false)
  })
  it('never the trusted proxy\'s own address by the allow-list (it named no client); the bearer token still', () => {
    const viaProxy = { ...base, clientIp: '127.0.0.1', proxyWithoutClient: true }
    expect(mayReadMetrics({ ...viaProxy, authorization: undefined })).toBe(false)
    expect(mayReadMetrics({ ...viaProxy, authorization: `Bearer ${TOKEN}` })).toBe(true)
  })
})

describe('isProxyWithoutClient', () => {
  const proxy = { trustProxy: true, proxyIp: '127.0.0.1', socketIp: '127.0.0.1' }
  it('is true for a request of the trusted proxy whose X-Forwarded-For is absent, empty or only the proxy', () => {
    for (const forwardedFor of [undefined, '', '127.0.0.1', ['127.0.0.1', '::ffff:127.0.0.1']]) {
      expect(isProxyWithoutClient({ ...proxy, forwardedFor }), String(forwardedFor)).toBe(true)
    }
    expect(isProxyWithoutClient({ ...proxy, socketIp: '::ffff:127.0.0.1', forwardedFor: undefined })).toBe(true)
  })
  it('is false when the proxy names a client, for another socket, or without a trusted proxy', () => {
    expect(isProxyWithoutClient({ ...proxy, forwardedFor: '203.0.113.9' })).toBe(false)
    expect(isProxyWithoutClient({ ...proxy, forwardedFor: '::1, 127.0.0.1' })).toBe(false)
    expect(isProxyWithoutClient({ ...proxy, socketIp: '127.0.0.2', forwardedFor: undefined })).toBe(false)
    expect(isProxyWithoutClient({ ...proxy, trustProxy: false, forwardedFor: undefined })).toBe(false)
    expect(isProxyWithoutClient({ ...proxy, proxyIp: undefined, forwardedFor: undefined })).toBe(false)
  })
})
