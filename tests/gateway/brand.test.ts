/**
 * A team's brand on the pages (gateway config `brand`, server/utils/brand.ts, components/SiteHeader.vue,
 * components/SiteFooter.vue, server/plugins/csp-hashes.ts): the server-rendered HTML carries the
 * logo with the name as its alt text, the favicon, the colours and the footer's legal and support
 * links, and the page CSP opens img-src to the logo's origin alone, no other directive.
 */
// store-independent: its subject is the gateway config brand in the rendered HTML; no answer it checks comes from a store
import { describe, expect, it } from 'vitest'
import { browserLike, setupStackOnSharedIam } from './bff-harness'

const CDN = 'https://cdn.acme.example'
const BRAND = {
  name: 'Acme Cloud',
  logoUrl: `${CDN}/logo.svg`,
  faviconUrl: '/brand/favicon.ico',
  colors: { primary: '#7a1fa2', primaryText: '#ffffff' },
  supportEmail: 'help@acme.example',
  legal: { termsUrl: 'https://acme.example/terms', privacyUrl: 'https://acme.example/privacy' },
}
const { gateway } = await setupStackOnSharedIam({ brand: BRAND })
const PAGE = { accept: 'text/html', 'sec-fetch-dest': 'document' }

const page = async (path: string) => {
  const res = await browserLike(gateway.url).call(path, { headers: PAGE })
  expect([path, res.status]).toEqual([path, 200])
  const csp = Object.fromEntries((res.headers.get('content-security-policy') ?? '').split('; ').map((d) => [d.split(' ')[0], d.split(' ').slice(1)]))
  return { html: res.text, csp }
}

describe('a configured brand on the pages', () => {
  it('shows the logo with the name as its alt text, the favicon, the colours and the footer links on every page', async () => {
    for (const path of ['/', '/login', '/signup', '/forgot-password']) {
      const { html } = await page(path)
      expect([path, html]).toEqual([path, expect.stringMatching(/<header class="site"[^>]*><a [^>]*href="\/"[^>]*><img src="https:\/\/cdn\.acme\.example\/logo\.svg" alt="Acme Cloud"/)])
      expect([path, html]).toEqual([path, expect.stringMatching(/<link[^>]*rel="icon"[^>]*href="\/brand\/favicon\.ico"|<link[^>]*href="\/brand\/favicon\.ico"[^>]*rel="icon"/)])
      expect([path, html]).toEqual([path, expect.stringContaining('--accent:#7a1fa2;--accent-fg:#ffffff')])
      expect([path, html]).toEqual([path, expect.stringMatching(/<a href="https:\/\/acme\.example\/terms" data-footer="terms"[^>]*>Terms<\/a>/)])
      expect([path, html]).toEqual([path, expect.stringMatching(/<a href="https:\/\/acme\.example\/privacy" data-footer="privacy"[^>]*>Privacy<\/a>/)])
      expect([path, html]).toEqual([path, expect.stringMatching(/<a href="mailto:help@acme\.example" data-footer="support"[^>]*>Support<\/a>/)])
      expect([path, html]).toEqual([path, expect.stringMatching(/<title>[^<]*Acme Cloud<\/title>/)])
    }
  })

  it('links the terms from the sign-up checkbox', async () => {
    const { html } = await page('/signup')
    expect(html).toMatch(/<label class="check" for="termsConsent">[\s\S]*<a href="https:\/\/acme\.example\/terms" target="_blank" rel="noopener">terms of service<\/a>[\s\S]*<\/label>/)
  })

  it('says the footer links in the page language', async () => {
    const res = await browserLike(gateway.url).call('/login', { headers: { ...PAGE, cookie: 'locale=de' } })
    expect(res.text).toMatch(/data-footer="terms"[^>]*>Nutzungsbedingungen<\/a>/)
    expect(res.text).toMatch(/data-footer="privacy"[^>]*>Datenschutz<\/a>/)
  })

  it('opens img-src to the logo origin (beside Gravatar, for the pictures people choose) and no other directive to anything', async () => {
    for (const path of ['/', '/login', '/signup']) {
      const { csp } = await page(path)
      expect([path, csp['img-src']]).toEqual([path, ["'self'", 'data:', 'https://gravatar.com', CDN]])
      for (const [directive, sources] of Object.entries(csp)) {
        if (directive === 'img-src') continue
        expect([path, directive, (sources as string[]).filter((source) => source.includes('acme'))]).toEqual([path, directive, []])
      }
      expect([path, (csp['script-src'] as string[]).filter((source) => !source.startsWith("'"))]).toEqual([path, []])
    }
  })
})
