/**
 * The brand the pages render (shared/brand.ts, PublicBrand) from the gateway config's `brand`, with
 * the runtime config's `public.siteName` / `public.supportEmail` (NUXT_PUBLIC_SITE_NAME,
 * NUXT_PUBLIC_SUPPORT_EMAIL) as the defaults they were before the brand existed. Pure.
 */
import { PAGE_BACKGROUND, readableOn, type PublicBrand } from '../../shared/brand'
import type { BrandConfig } from './gateway-config'

export function publicBrand(brand: BrandConfig, defaults: { siteName?: unknown; supportEmail?: unknown }): PublicBrand {
  const primary = brand.colors?.primary ?? null
  return {
    name: brand.name ?? (String(defaults.siteName ?? '').trim() || 'Identity'),
    logoUrl: brand.logoUrl ?? null,
    faviconUrl: brand.faviconUrl ?? null,
    primary,
    primaryText: brand.colors?.primaryText ?? null,
    link: { light: primary && readableOn(primary, PAGE_BACKGROUND.light), dark: primary && readableOn(primary, PAGE_BACKGROUND.dark) },
    supportEmail: brand.supportEmail ?? (String(defaults.supportEmail ?? '').trim() || null),
    termsUrl: brand.legal.termsUrl ?? null,
    privacyUrl: brand.legal.privacyUrl ?? null,
  }
}

/** The origins other than the gateway's own that the brand's images load from: the page CSP's img-src gets these alone. */
export function brandImageOrigins(brand: BrandConfig): string[] {
  const urls = [brand.logoUrl, brand.faviconUrl].filter((url): url is string => !!url && url.startsWith('https://'))
  return [...new Set(urls.map((url) => new URL(url).origin))]
}
