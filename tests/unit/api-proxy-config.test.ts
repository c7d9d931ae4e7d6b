/**
 * The API proxy's config rules (gateway config `apis`) and its URL building: every request path is
 * appended to the API's base path, and anything that could step out of it is refused.
 */
import { describe, expect, it } from 'vitest'
import { parseConfig } from '../../iam/lib/config'
import { parseGatewayConfig } from '../../server/utils/gateway-config'
import { upstreamUrlFor } from '../../server/utils/upstream-proxy'

const api = (extra: Record<string, unknown> = {}) => ({ name: 'orders', upstream: 'https://api.example/v1', audience: 'https://orders.example', ...extra })

describe('apis config', () => {
  it('applies defaults', () => {
    expect(parseGatewayConfig({}).apis).toEqual([])
    expect(parseGatewayConfig({ apis: [api()] }).apis[0]).toEqual({
      name: 'orders',
      upstream: 'https://api.example/v1',
      audience: 'https://orders.example',
      scopes: [],
      timeoutMs: 10_000,
      maxBodyBytes: 1024 * 1024,
    })
  })

  it('refuses an API without an audience, naming the entry and what to set', () => {
    // every API gets tokens bound to its own audience: without one, a token it receives would be good at the others
    const { audience: _, ...noAudience } = api()
    for (const entry of [noAudience, api({ audience: '' })]) {
      let message = ''
      try {
        parseGatewayConfig({ apis: [api({ name: 'first', audience: 'https://first.example' }), entry] })
      } catch (error) {
        message = (error as Error).message
      }
      expect(message).toMatch(/apis\.1\.audience/)
      expect(message).toMatch(/"orders"/)
      expect(message).toMatch(/jwt\.api_access_tokens\.audiences/)
    }
  })

  it('refuses bad names and duplicates', () => {
    for (const name of ['', 'Orders', 'a_b', 'a/b', 'x'.repeat(65)]) expect(() => parseGatewayConfig({ apis: [api({ name })] })).toThrow(/apis\.0\.name/)
    expect(() => parseGatewayConfig({ apis: [api(), api({ upstream: 'https://other.example', audience: 'https://other.example' })] })).toThrow(/API names must be unique/)
  })

  it('refuses upstreams that are not plain absolute http(s) URLs', () => {
    for (const upstream of ['/relative', 'ftp://api.example', 'https://api.example/v1?x=1', 'https://api.example/v1#f', 'https://u:p@api.example', 'https://api.example/?']) {
      expect(() => parseGatewayConfig({ apis: [api({ upstream })] }), upstream).toThrow(/apis\.0\.upstream/)
    }
    expect(parseGatewayConfig({ apis: [api({ upstream: 'http://127.0.0.1:8080' })] }).apis[0]?.upstream).toBe('http://127.0.0.1:8080')
  })

  it('refuses unknown keys and bad timeouts', () => {
    expect(() => parseGatewayConfig({ apis: [api({ follow: true })] })).toThrow(/apis\.0\.follow: unknown key/)
    expect(() => parseGatewayConfig({ apis: [api({ timeoutMs: 0 })] })).toThrow(/apis\.0\.timeoutMs/)
  })
})

describe('the IAM\'s per-API audiences (jwt.api_access_tokens)', () => {
  it('issues for no API by default, for 5 minutes at most', () => {
    expect(parseConfig({}).jwt.api_access_tokens).toEqual({ audiences: [], expiresInMs: 5 * 60_000 })
  })

  it('refuses the session tokens\' own audience and duplicates', () => {
    // a per-API token for the session audience would be a session token to everything that takes those
    expect(() => parseConfig({ jwt: { api_access_tokens: { audiences: ['http://127.0.0.1:3000'] } } })).toThrow(/api_access_tokens\.audiences/)
    expect(() => parseConfig({ jwt: { access_tokens: { audience: 'https://app.example' }, api_access_tokens: { audiences: ['https://app.example'] } } })).toThrow(
      /api_access_tokens\.audiences/,
    )
    expect(() => parseConfig({ jwt: { api_access_tokens: { audiences: ['https://a.example', 'https://a.example'] } } })).toThrow(/api_access_tokens\.audiences/)
    expect(parseConfig({ jwt: { api_access_tokens: { audiences: ['https://a.example', 'https://b.example'] } } }).jwt.api_access_tokens.audiences).toEqual([
      'https://a.example',
      'https://b.example',
    ])
  })
})

describe('upstreamUrlFor', () => {
  const at = (upstream: string, path: string, query = '') => upstreamUrlFor(upstream, path, query)?.href

  it('appends the path and query to the base path', () => {
    expect(at('https://api.example/v1', '/items/7', 'full=1')).toBe('https://api.example/v1/items/7?full=1')
    expect(at('https://api.example/v1/', '/items')).toBe('https://api.example/v1/items')
    expect(at('https://api.example/v1', '')).toBe('https://api.example/v1')
    expect(at('https://api.example/v1/', '')).toBe('https://api.example/v1/')
    expect(at('https://api.example', '/items/')).toBe('https://api.example/items/')
    expect(at('https://api.example', '/a%20b/%C3%A9')).toBe('https://api.example/a%20b/%C3%A9')
  })

  it('refuses anything that could leave the base', () => {
    const tricks = ['/../x', '/a/../../x', '/%2e%2e/x', '/%2E%2e', '/.%2e/x', '/./x', '/a%2f..%2fx', '/a%2F..', '/a%5cb', '//evil.example/x', '/a//b', '/\\evil.example', '/a\\b', '/a%00b', '/%zz', 'x', '/a#b', '/a b']
    for (const path of tricks) expect(at('https://api.example/v1', path), path).toBeUndefined()
    expect(at('https://api.example/v1', '/x', 'a=1#frag')).toBeUndefined()
  })
})
