/**
 * The brand's config rules on both sides (gateway `brand`, server/utils/gateway-config.ts; IAM
 * `email.brand`, iam/lib/config-schema.ts; shared/brand.ts): hex colours only, https images and
 * legal pages, and a text colour that reads on its button (WCAG 2.2, 1.4.3: 4.5:1), refused at load
 * with a message naming the key.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { parseConfig } from '../../iam/lib/config'
import { contrastRatio } from '../../shared/brand'
import { brandImageOrigins, publicBrand } from '../../server/utils/brand'
import { parseGatewayConfig } from '../../server/utils/gateway-config'

const refusal = (run: () => unknown): string => {
  try {
    run()
  } catch (error) {
    return (error as Error).message
  }
  return ''
}

const GOOD = {
  name: 'Acme',
  logoUrl: 'https://cdn.acme.example/logo.svg',
  faviconUrl: '/brand/favicon.ico',
  colors: { primary: '#7a1fa2', primaryText: '#ffffff' },
  supportEmail: 'help@acme.example',
  legal: { termsUrl: 'https://acme.example/terms', privacyUrl: 'https://acme.example/privacy' },
}

describe('contrast ratio', () => {
  it('follows the WCAG relative luminance: black on white is 21, a colour on itself is 1', () => {
    expect(contrastRatio('#000000', '#ffffff')).toBeCloseTo(21, 5)
    expect(contrastRatio('#fff', '#000')).toBeCloseTo(21, 5)
    expect(contrastRatio('#0b57d0', '#0b57d0')).toBe(1)
    // the value WCAG's own examples and every checker give for #767676 on white
    expect(contrastRatio('#767676', '#ffffff')).toBeCloseTo(4.54, 2)
  })
})

describe('gateway brand config', () => {
  it('accepts a full brand and keeps every value', () => {
    expect(parseGatewayConfig({ brand: GOOD }).brand).toEqual(GOOD)
  })

  it('applies no brand when none is configured', () => {
    expect(parseGatewayConfig({}).brand).toEqual({ legal: {} })
  })

  it('refuses a colour that is not hex, naming the key', () => {
    for (const primary of ['blue', 'rgb(0,0,255)', '#12345', '0b57d0']) {
      const message = refusal(() => parseGatewayConfig({ brand: { colors: { primary, primaryText: '#ffffff' } } }))
      expect([primary, message]).toEqual([primary, expect.stringMatching(/brand\.colors\.primary: expected a hex colour/)])
    }
  })

  it('refuses a text colour below 4.5 to 1 on the primary colour, saying the ratio', () => {
    const message = refusal(() => parseGatewayConfig({ brand: { colors: { primary: '#ffcc00', primaryText: '#ffffff' } } }))
    expect(message).toMatch(/brand\.colors\.primaryText: text #ffffff on #ffcc00 has a contrast of 1\.\d\d:1; at least 4\.5:1 is needed/)
    // the same yellow with black text reads: accepted
    expect(parseGatewayConfig({ brand: { colors: { primary: '#ffcc00', primaryText: '#000000' } } }).brand.colors).toEqual({ primary: '#ffcc00', primaryText: '#000000' })
  })

  it('refuses a logo or favicon over http or on a scheme-relative address', () => {
    for (const [key, value] of [
      ['logoUrl', 'http://cdn.acme.example/logo.svg'],
      ['logoUrl', '//cdn.acme.example/logo.svg'],
      ['faviconUrl', '/\\cdn.acme.example/icon.png'],
      ['logoUrl', 'javascript:alert(1)'],
      ['faviconUrl', 'data:image/png;base64,AAAA'],
    ] as const) {
      const message = refusal(() => parseGatewayConfig({ brand: { [key]: value } }))
      expect([value, message]).toEqual([value, expect.stringMatching(new RegExp(`brand\\.${key}: expected an https:// URL or a path on this site`))])
    }
  })

  it('refuses legal pages over http and a support address that is not one', () => {
    expect(refusal(() => parseGatewayConfig({ brand: { legal: { termsUrl: 'http://acme.example/terms' } } }))).toMatch(/brand\.legal\.termsUrl: expected an https:\/\/ URL/)
    expect(refusal(() => parseGatewayConfig({ brand: { supportEmail: 'help' } }))).toMatch(/brand\.supportEmail/)
    expect(refusal(() => parseGatewayConfig({ brand: { colour: '#000000' } }))).toMatch(/brand\.colour: unknown key/)
  })

  it('names the site by NUXT_PUBLIC_SITE_NAME and its support address when the brand does not', () => {
    const brand = publicBrand(parseGatewayConfig({}).brand, { siteName: 'Team', supportEmail: 'team@example.com' })
    expect(brand).toMatchObject({ name: 'Team', supportEmail: 'team@example.com', logoUrl: null, primary: null, termsUrl: null })
    expect(publicBrand(parseGatewayConfig({ brand: GOOD }).brand, { siteName: 'Team', supportEmail: 'team@example.com' })).toMatchObject({ name: 'Acme', supportEmail: 'help@acme.example' })
  })

  it('uses the primary colour for links only in the colour scheme where it reads as text', () => {
    // dark purple reads on white, not on the dark background; a light blue the other way round
    expect(publicBrand(parseGatewayConfig({ brand: GOOD }).brand, {}).link).toEqual({ light: '#7a1fa2', dark: null })
    const light = publicBrand(parseGatewayConfig({ brand: { colors: { primary: '#8ab4f8', primaryText: '#000000' } } }).brand, {})
    expect(light.link).toEqual({ light: null, dark: '#8ab4f8' })
  })

  it('opens img-src to the origins of https images alone, not to paths on the gateway', () => {
    expect(brandImageOrigins(parseGatewayConfig({ brand: GOOD }).brand)).toEqual(['https://cdn.acme.example'])
    expect(brandImageOrigins(parseGatewayConfig({ brand: { logoUrl: '/logo.svg' } }).brand)).toEqual([])
  })
})

describe('IAM mail brand config', () => {
  const MAIL = {
    logoUrl: 'https://cdn.acme.example/logo.png',
    primaryColor: '#7a1fa2',
    supportEmail: 'help@acme.example',
    legal: { termsUrl: 'https://acme.example/terms', privacyUrl: 'https://acme.example/privacy' },
  }

  it('accepts a brand beside email.siteName and has none by default', () => {
    expect(parseConfig({ email: { siteName: 'Acme', brand: MAIL } }).email.brand).toEqual(MAIL)
    expect(parseConfig({}).email.brand).toBeUndefined()
  })

  it('refuses a logo over http: mail clients would load it in clear text', () => {
    expect(refusal(() => parseConfig({ email: { brand: { logoUrl: 'http://cdn.acme.example/logo.png' } } }))).toMatch(/email\.brand\.logoUrl/)
  })

  it('refuses a primary colour white button text does not read on', () => {
    expect(refusal(() => parseConfig({ email: { brand: { primaryColor: 'teal' } } }))).toMatch(/email\.brand\.primaryColor/)
    expect(refusal(() => parseConfig({ email: { brand: { primaryColor: '#4da3ff' } } }))).toMatch(/email\.brand\.primaryColor: text #ffffff on #4da3ff has a contrast of/)
  })
})

describe('the example configs', () => {
  it('carry a brand that both schemas accept', () => {
    const gateway = JSON.parse(readFileSync(new URL('../../gateway.config.example.json', import.meta.url), 'utf8')) as Record<string, unknown>
    expect(parseGatewayConfig({ brand: gateway['brand'] }).brand.name).toBe('Example')
    const iam = JSON.parse(readFileSync(new URL('../../iam.config.example.json', import.meta.url), 'utf8')) as { email: Record<string, unknown> }
    expect(parseConfig({ email: { brand: iam.email['brand'] } }).email.brand?.primaryColor).toBe('#0b57d0')
  })
})

