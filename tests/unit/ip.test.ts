import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { isIpv4 as tokenFormIsIpv4 } from '../../composables/token-helpers'
import { isIP, isIPv4, limiterIpKey, normalizeIp, parseForwardedFor, resolveClientIp, sameNetwork } from '../../shared/ip'

describe('normalizeIp', () => {
  it('turns an IPv4-mapped IPv6 address into IPv4', () => {
    expect(normalizeIp('::ffff:127.0.0.1')).toBe('127.0.0.1')
    expect(normalizeIp('::FFFF:203.0.113.9')).toBe('203.0.113.9')
    expect(normalizeIp('::ffff:7f00:1')).toBe('127.0.0.1')
    expect(normalizeIp('0:0:0:0:0:ffff:c000:0201')).toBe('192.0.2.1')
  })
  it('gives IPv6 its RFC 5952 spelling', () => {
    expect(normalizeIp('0:0:0:0:0:0:0:1')).toBe('::1')
    expect(normalizeIp('2001:DB8:0:0:0:0:0:1')).toBe('2001:db8::1')
    expect(normalizeIp('2001:0db8:0000:0000:0001:0000:0000:0001')).toBe('2001:db8::1:0:0:1')
    expect(normalizeIp('2001:db8:0:1:1:1:1:1')).toBe('2001:db8:0:1:1:1:1:1')
    expect(normalizeIp('::')).toBe('::')
  })
  it('keeps IPv4 and leaves non-addresses as they are (trimmed)', () => {
    expect(normalizeIp(' 10.0.0.1 ')).toBe('10.0.0.1')
    expect(normalizeIp('not-an-ip')).toBe('not-an-ip')
    expect(isIP(normalizeIp('not-an-ip'))).toBe(false)
  })
})

describe('isIP / isIPv4', () => {
  it('accepts both families and rejects junk and leading zeros', () => {
    expect(isIPv4('192.0.2.1')).toBe(true)
    expect(isIPv4('::1')).toBe(false)
    expect(isIP('::1')).toBe(true)
    expect(isIP('192.0.2.256')).toBe(false)
    expect(isIP('010.0.0.1')).toBe(false)
    expect(isIP('')).toBe(false)
  })

  // The token form's check runs in the browser, where node:net is missing, so it cannot share this
  // module; it must still accept exactly what the IAM accepts, or users see errors only after submit.
  it('the token form accepts exactly the IPv4 addresses the IAM accepts', () => {
    const octet = fc.oneof(fc.integer({ min: 0, max: 300 }).map(String), fc.stringMatching(/^0\d{1,2}$/), fc.constant(''))
    const quadLike = fc.array(octet, { minLength: 3, maxLength: 5 }).map((parts) => parts.join('.'))
    fc.assert(fc.property(fc.oneof(quadLike, fc.string({ maxLength: 20 })), (text) => {
      expect(tokenFormIsIpv4(text)).toBe(isIPv4(text))
    }), { numRuns: 2000 })
  })
})

describe('sameNetwork', () => {
  it('compares /24 for IPv4 and /48 for IPv6', () => {
    expect(sameNetwork('192.0.2.1', '192.0.2.254')).toBe(true)
    expect(sameNetwork('192.0.2.1', '192.0.3.1')).toBe(false)
    expect(sameNetwork('2001:db8:1::1', '2001:db8:1:ffff::2')).toBe(true)
    expect(sameNetwork('2001:db8:1::1', '2001:db8:2::1')).toBe(false)
  })
  it('treats a mapped address as its IPv4 and mixed families as different', () => {
    expect(sameNetwork('::ffff:192.0.2.1', '192.0.2.9')).toBe(true)
    expect(sameNetwork('192.0.2.1', '2001:db8::1')).toBe(false)
    expect(sameNetwork('junk', 'junk')).toBe(false)
  })
})

describe('parseForwardedFor', () => {
  it('splits, trims, strips ports and brackets, normalises', () => {
    expect(parseForwardedFor('203.0.113.9, 198.51.100.1:4711, [2001:db8::1]:80, ::ffff:10.0.0.1')).toEqual([
      '203.0.113.9',
      '198.51.100.1',
      '2001:db8::1',
      '10.0.0.1',
    ])
    expect(parseForwardedFor(['1.1.1.1', '2.2.2.2'])).toEqual(['1.1.1.1', '2.2.2.2'])
    expect(parseForwardedFor(undefined)).toEqual([])
    expect(parseForwardedFor(' ')).toEqual([])
  })
})

describe('resolveClientIp', () => {
  const proxy = { trustProxy: true, proxyIp: '10.0.0.5' }
  it('uses the socket address when the proxy is not trusted, ignoring X-Forwarded-For', () => {
    expect(resolveClientIp({ socketIp: '::ffff:10.0.0.5', forwardedFor: '6.6.6.6', trustProxy: false, proxyIp: '10.0.0.5' })).toBe('10.0.0.5')
  })
  it('uses the socket address when the request does not come from the trusted proxy', () => {
    expect(resolveClientIp({ socketIp: '10.0.0.9', forwardedFor: '6.6.6.6', ...proxy })).toBe('10.0.0.9')
  })
  it('takes the right-most X-Forwarded-For address that is not the proxy', () => {
    expect(resolveClientIp({ socketIp: '10.0.0.5', forwardedFor: '6.6.6.6, 203.0.113.9, 10.0.0.5', ...proxy })).toBe('203.0.113.9')
  })
  it('normalises a mapped socket address before comparing it with the proxy', () => {
    expect(resolveClientIp({ socketIp: '::ffff:10.0.0.5', forwardedFor: '::ffff:203.0.113.9', ...proxy })).toBe('203.0.113.9')
  })
  it('is the proxy itself when it forwards no other address', () => {
    expect(resolveClientIp({ socketIp: '10.0.0.5', forwardedFor: undefined, ...proxy })).toBe('10.0.0.5')
  })
  it('is unresolvable (null) for an invalid forwarded entry or a missing socket address', () => {
    expect(resolveClientIp({ socketIp: '10.0.0.5', forwardedFor: '1.1.1.1, evil', ...proxy })).toBeNull()
    expect(resolveClientIp({ socketIp: '10.0.0.5', forwardedFor: '1.1.1.1, ', ...proxy })).toBeNull()
    expect(resolveClientIp({ socketIp: undefined, forwardedFor: undefined, trustProxy: false, proxyIp: undefined })).toBeNull()
  })
})

describe('limiterIpKey', () => {
  it('gives every address of one IPv6 /64 the same key, the /64 prefix in canonical form', () => {
    expect(limiterIpKey('2001:db8:1:2::1')).toBe('2001:db8:1:2::/64')
    expect(limiterIpKey('2001:db8:1:2:ffff:ffff:ffff:ffff')).toBe('2001:db8:1:2::/64')
    expect(limiterIpKey('2001:db8:1:2:a:b:c:d')).toBe('2001:db8:1:2::/64')
    expect(limiterIpKey('2001:db8::1')).toBe('2001:db8::/64')
    expect(limiterIpKey('fe80::1%eth0')).toBe('fe80::/64')
  })
  it('gives different /64s different keys', () => {
    expect(limiterIpKey('2001:db8:1:2::1')).not.toBe(limiterIpKey('2001:db8:1:3::1'))
    expect(limiterIpKey('2001:db8:1:2::1')).not.toBe(limiterIpKey('2001:db9:1:2::1'))
  })
  it('keeps an IPv4 address as it is (and an IPv4-mapped one as its IPv4)', () => {
    expect(limiterIpKey('203.0.113.9')).toBe('203.0.113.9')
    expect(limiterIpKey('203.0.113.10')).toBe('203.0.113.10')
    expect(limiterIpKey('::ffff:203.0.113.9')).toBe('203.0.113.9')
  })
  it('gives one key to every spelling of one address', () => {
    const spellings = [
      '2001:db8:0:1::5',
      '2001:DB8:0:1:0:0:0:5',
      '2001:0db8:0000:0001:0000:0000:0000:0005',
      '2001:db8:0:1:0::5',
      ' 2001:db8:0:1::5 ',
    ]
    expect(new Set(spellings.map(limiterIpKey))).toEqual(new Set(['2001:db8:0:1::/64']))
  })
})
