/**
 * The rules a team's brand follows in both apps (the gateway's `brand`, server/utils/gateway-config.ts,
 * and the IAM's `email.brand`, iam/lib/config-schema.ts): colours are hex, images and legal pages
 * are https, and text on a brand colour keeps the contrast WCAG 2.2 asks of body text (1.4.3,
 * at least 4.5:1). Checked when the config loads, so a low-contrast brand never reaches a page or a mail.
 */
import { z } from 'zod'

/** `#rgb` or `#rrggbb`: the one form every mail client and browser reads alike (no names, no rgb()). */
export const HEX_COLOR = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/

/** WCAG 2.2 1.4.3 (Contrast, Minimum): normal-size text needs at least 4.5:1 against its background. */
export const MIN_TEXT_CONTRAST = 4.5

/** `#abc` -> [0xaa, 0xbb, 0xcc]; `#aabbcc` -> [0xaa, 0xbb, 0xcc]. The input is checked against HEX_COLOR first. */
function channels(hex: string): [number, number, number] {
  const digits = hex.slice(1)
  const full = digits.length === 3 ? [...digits].map((d) => d + d).join('') : digits
  return [0, 2, 4].map((i) => parseInt(full.slice(i, i + 2), 16)) as [number, number, number]
}

/** Relative luminance of an sRGB colour, as WCAG 2.2 defines it (its glossary, "relative luminance"). */
export function relativeLuminance(hex: string): number {
  const [r, g, b] = channels(hex).map((value) => {
    const c = value / 255
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4
  }) as [number, number, number]
  return 0.2126 * r + 0.7152 * g + 0.0722 * b
}

/** The contrast ratio of two colours, from 1 (the same) to 21 (black on white); order does not matter. */
export function contrastRatio(a: string, b: string): number {
  const [light, dark] = [relativeLuminance(a), relativeLuminance(b)].sort((x, y) => y - x) as [number, number]
  return (light + 0.05) / (dark + 0.05)
}

/** A hex colour, said so when it is not one. */
export const hexColor = z.string().regex(HEX_COLOR, 'expected a hex colour such as #0b57d0')

/** An https URL: a logo or a legal page linked from a page or a mail is never fetched in clear text. */
export const httpsUrl = z.url({ protocol: /^https$/, error: 'expected an https:// URL' })

/**
 * The message a brand colour pair gets when its text would be hard to read, naming both colours and
 * the ratio, or null when the pair is readable.
 */
export function contrastProblem(background: string, text: string): string | null {
  if (!HEX_COLOR.test(background) || !HEX_COLOR.test(text)) return null // hexColor says why
  const ratio = contrastRatio(background, text)
  if (ratio >= MIN_TEXT_CONTRAST) return null
  return `text ${text} on ${background} has a contrast of ${ratio.toFixed(2)}:1; at least ${MIN_TEXT_CONTRAST}:1 is needed (WCAG 2.2, 1.4.3): pick a darker or a lighter colour`
}

/**
 * The pages' background in each colour scheme (assets/main.css, `--bg`): a brand colour is used for
 * links and the focus ring only where it reaches 4.5:1 against it, else the palette's own link colour.
 */
export const PAGE_BACKGROUND = { light: '#ffffff', dark: '#121417' } as const

/** `color` when text in it reads on `background` (4.5:1), else null. */
export function readableOn(color: string, background: string): string | null {
  return HEX_COLOR.test(color) && contrastRatio(color, background) >= MIN_TEXT_CONTRAST ? color : null
}

/**
 * What the pages need of the brand (server/utils/brand.ts computes it, composables/useBrand.ts reads
 * it): every value already checked and every default applied, so a page only renders it.
 */
export interface PublicBrand {
  name: string
  logoUrl: string | null
  faviconUrl: string | null
  /** the buttons' background and text; null keeps the stylesheet's own */
  primary: string | null
  primaryText: string | null
  /** the primary colour where it reads as link text on the page background of that scheme, else null */
  link: { light: string | null; dark: string | null }
  supportEmail: string | null
  termsUrl: string | null
  privacyUrl: string | null
}
