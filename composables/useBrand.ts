/**
 * The team's brand the pages show (shared/brand.ts, PublicBrand): the server render reads it from
 * the request (server/middleware/06.brand.ts) and the payload carries it to the browser, so the
 * header, the favicon and the footer are the same before and after hydration.
 */
import type { PublicBrand } from '#identity-shared/brand'

export function useBrand() {
  const event = useRequestEvent()
  const { siteName, supportEmail } = useRuntimeConfig().public
  return useState<PublicBrand>('brand', () => {
    const fromServer = event?.context.brand as PublicBrand | undefined
    return (
      fromServer ?? {
        name: String(siteName || 'Identity'),
        logoUrl: null,
        faviconUrl: null,
        primary: null,
        primaryText: null,
        link: { light: null, dark: null },
        supportEmail: String(supportEmail ?? '') || null,
        termsUrl: null,
        privacyUrl: null,
      }
    )
  })
}

/**
 * The brand's colours as CSS custom properties over assets/main.css's: buttons in the primary colour,
 * links and the focus ring in it only where it reads on that scheme's background. Every value is a
 * hex colour checked at config load (shared/brand.ts), so nothing else can reach the style sheet.
 */
export function brandStyle(brand: PublicBrand): string {
  const button = [...(brand.primary ? [`--accent:${brand.primary}`] : []), ...(brand.primaryText ? [`--accent-fg:${brand.primaryText}`] : [])]
  // per scheme, so a primary colour that reads only on white never overrides the dark palette's link
  // colour; `html:root` outranks main.css's `:root` whichever comes first in the head
  return (
    (button.length ? `html:root{${button.join(';')}}` : '') +
    (brand.link.light ? `@media (prefers-color-scheme: light){html:root{--link:${brand.link.light}}}` : '') +
    (brand.link.dark ? `@media (prefers-color-scheme: dark){html:root{--link:${brand.link.dark}}}` : '')
  )
}

/** The favicon and the colours in the page's head (app.vue, error.vue); nothing when the brand sets neither. */
export function brandHead(brand: PublicBrand) {
  const style = brandStyle(brand)
  return {
    link: brand.faviconUrl ? [{ key: 'brand-icon', rel: 'icon', href: brand.faviconUrl }] : [],
    style: style ? [{ key: 'brand-colors', textContent: style }] : [],
  }
}
