import { describe, expect, it } from 'vitest'
import { isAiCrawler } from '../../iam/features/devices/ai-crawlers'
import { buildFingerPrint, cachedFingerPrint, scoreFingerPrint } from '../../iam/features/devices/fingerprint'
import { geoFromRecord } from '../../iam/features/devices/geo'

const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36'
const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1'

describe('fingerprint', () => {
  it('parses a desktop browser: device desktop, browser, version, OS; not a bot', () => {
    const fp = buildFingerPrint(CHROME, '203.0.113.1', null)
    expect(fp).toMatchObject({ userAgent: CHROME, ipAddress: '203.0.113.1', device: 'desktop', bot: false, botAI: false, browser: 'Chrome', browserVersion: '124.0.0.0', os: 'Windows' })
    expect(fp).not.toHaveProperty('country')
    expect(scoreFingerPrint(fp)).toBe(0)
  })
  it('parses a phone with vendor and model', () => {
    expect(buildFingerPrint(IPHONE, '203.0.113.1', null)).toMatchObject({ device: 'mobile', deviceVendor: 'Apple', deviceModel: 'iPhone', os: 'iOS' })
  })
  it('flags crawlers as bots and AI crawlers as botAI (scored at the ban level)', () => {
    const google = buildFingerPrint('Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)', '66.249.66.1', null)
    expect(google).toMatchObject({ bot: true, botAI: false })
    expect(scoreFingerPrint(google)).toBeLessThan(25)
    for (const ua of ['Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)', 'ClaudeBot/1.0', 'CCBot/2.0 (https://commoncrawl.org/faq/)', 'Mozilla/5.0 (compatible; PerplexityBot/1.0)', 'Bytespider']) {
      const fp = buildFingerPrint(ua, '203.0.113.1', null)
      expect(fp).toMatchObject({ bot: true, botAI: true })
      expect(scoreFingerPrint(fp)).toBeGreaterThanOrEqual(100)
    }
    expect(isAiCrawler(CHROME)).toBe(false)
  })
  it('adds geo fields from a lookup and scores proxy/hosting networks', () => {
    const fp = buildFingerPrint(CHROME, '203.0.113.1', () => ({ countryCode: 'DE', country: 'Germany', asn: 64500, hosting: true }))
    expect(fp).toMatchObject({ countryCode: 'DE', country: 'Germany', asn: 64500, hosting: true })
    expect(scoreFingerPrint(fp)).toBeGreaterThanOrEqual(25)
  })
})

describe('cachedFingerPrint', () => {
  it('answers the fingerprint buildFingerPrint makes, with no key holding undefined', () => {
    const fp = cachedFingerPrint(CHROME, '203.0.113.7', null, '')
    expect(fp).toEqual(buildFingerPrint(CHROME, '203.0.113.7', null))
    expect(Object.values(fp)).not.toContain(undefined)
  })
  it('shares one frozen object between requests with the same agent, address and geo source only', () => {
    const first = cachedFingerPrint(IPHONE, '203.0.113.8', null, '')
    expect(cachedFingerPrint(IPHONE, '203.0.113.8', null, '')).toBe(first)
    expect(Object.isFrozen(first)).toBe(true)
    expect(cachedFingerPrint(IPHONE, '203.0.113.9', null, '')).toMatchObject({ ipAddress: '203.0.113.9' })
    expect(cachedFingerPrint(CHROME, '203.0.113.8', null, '')).toMatchObject({ browser: 'Chrome' })
  })
  it('never serves an entry made from another geo database', () => {
    const germany = () => ({ countryCode: 'DE' })
    const france = () => ({ countryCode: 'FR' })
    expect(cachedFingerPrint(CHROME, '198.51.100.1', germany, '/geo/a.mmdb')).toMatchObject({ countryCode: 'DE' })
    expect(cachedFingerPrint(CHROME, '198.51.100.1', france, '/geo/b.mmdb')).toMatchObject({ countryCode: 'FR' })
    expect(cachedFingerPrint(CHROME, '198.51.100.1', null, '')).not.toHaveProperty('countryCode')
  })
})

describe('geoFromRecord', () => {
  it('reads GeoIP2-style City + ASN + anonymous-IP traits', () => {
    expect(
      geoFromRecord({
        country: { iso_code: 'FR', names: { en: 'France' } },
        subdivisions: [{ iso_code: 'IDF', names: { en: 'Île-de-France' } }],
        city: { names: { en: 'Paris' } },
        location: { latitude: 48.85, longitude: 2.35, time_zone: 'Europe/Paris' },
        autonomous_system_number: 3215,
        autonomous_system_organization: 'Orange',
        traits: { is_anonymous_proxy: true, is_hosting_provider: false },
      }),
    ).toEqual({
      country: 'France', countryCode: 'FR', region: 'IDF', regionName: 'Île-de-France', city: 'Paris', lat: 48.85, lon: 2.35,
      timezone: 'Europe/Paris', asn: 3215, as_org: 'Orange', proxy: true, hosting: false,
    })
  })
  it('leaves out what the record does not have', () => {
    expect(geoFromRecord({ country: { iso_code: 'US' } })).toEqual({ countryCode: 'US' })
  })
})
