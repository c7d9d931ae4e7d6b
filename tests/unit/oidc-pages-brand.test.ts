/**
 * The pages the OpenID Provider renders itself (iam/features/oidc/pages.ts) wear the team's brand
 * from the IAM's config (email.siteName, email.brand), as the gateway's pages wear theirs, and
 * their CSP lets in exactly the stylesheet they carry and the logo's origin.
 */
import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { DEFAULT_LOOK, errorPage, oidcCsp, pageLookOf, signOutPage } from '../../iam/features/oidc/pages'

const BRANDED = {
  siteName: 'Acme ID',
  brand: { logoUrl: 'https://cdn.acme.test/logo.svg', primaryColor: '#5b2a86', supportEmail: 'help@acme.test', legal: { termsUrl: 'https://acme.test/terms', privacyUrl: 'https://acme.test/privacy' } },
}

const styleOf = (html: string) => /<style>([^<]*)<\/style>/.exec(html)![1]!
const hashOf = (style: string) => `'sha256-${createHash('sha256').update(style).digest('base64')}'`

describe('the provider pages in the team brand', () => {
  it('show the configured name and logo, the primary colour on the buttons and the legal and support links in the page language', () => {
    const look = pageLookOf(BRANDED)
    const html = signOutPage('de', '<form id="op.logoutForm"></form>', 'Team app', look)
    // the logo stands for the name, as in the gateway's header
    expect(html).toContain('<a href="/" class="brand"><img src="https://cdn.acme.test/logo.svg" alt="Acme ID"></a>')
    expect(styleOf(html)).toContain('--accent:#5b2a86')
    expect(html).toContain('<footer><nav aria-label="Rechtliches und Hilfe"><a href="https://acme.test/terms">Nutzungsbedingungen</a><a href="https://acme.test/privacy">Datenschutz</a><a href="mailto:help@acme.test">Hilfe</a></nav></footer>')
  })

  it('allow the page own stylesheet and the logo origin in their CSP, nothing more', () => {
    const look = pageLookOf(BRANDED)
    const csp = oidcCsp(look)
    expect(csp).toContain(`style-src 'self' ${hashOf(styleOf(errorPage({ error: 'invalid_request' }, 'en', look)))}`)
    expect(csp).toContain("img-src 'self' data: https://cdn.acme.test;")
    expect(oidcCsp(DEFAULT_LOOK)).toContain("img-src 'self' data:;")
  })

  it('use the primary colour for links only where it reads on each scheme background', () => {
    // a dark purple reads on white, not on the dark background: the dark scheme keeps its own link colour
    const look = pageLookOf(BRANDED)
    expect(look.link).toEqual({ light: '#5b2a86', dark: null })
    const style = styleOf(errorPage({ error: 'invalid_request' }, 'en', look))
    expect(style).toContain('--link:#5b2a86')
    expect(style).toMatch(/prefers-color-scheme:dark\)\{:root\{[^}]*--link:#8ab4f8/)
  })

  it('without a brand keep the product name, no logo and no footer', () => {
    const html = errorPage({ error: 'invalid_request' }, 'en', pageLookOf({ siteName: 'Identity' }))
    expect(html).toContain('<a href="/" class="brand">Identity</a>')
    expect(html).not.toContain('<img')
    expect(html).not.toContain('<footer>')
  })

  it('escape what the config says, as every value put in a page', () => {
    const html = errorPage({ error: 'invalid_request' }, 'en', pageLookOf({ siteName: 'A <b>&</b> B' }))
    expect(html).toContain('class="brand">A &#60;b&#62;&#38;&#60;/b&#62; B</a>')
    expect(html).not.toContain('<b>')
  })
})
