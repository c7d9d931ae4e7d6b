/**
 * What the browser tests of the page languages share (tests/e2e/i18n*.test.ts, docs/i18n.md): the
 * languages, their catalogues read as the pages read them, and the layout check at a phone's width.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { ROOT } from '../helpers/build'

export const LOCALES = ['en', 'de', 'fr', 'es', 'ja', 'ar'] as const
export type Locale = (typeof LOCALES)[number]

/**
 * The languages the per-language browser tests walk: the words of all six are the catalogue test's
 * (tests/unit/i18n-catalogue.test.ts), and what a browser adds is layout and script. French and
 * Spanish are left-to-right Latin script like German, whose long compounds make the widest text of
 * the three, so en, de, ja and ar cover what a page can get wrong; all six with
 * UPDATE_SCREENSHOTS=1 (the screenshots of docs/screenshots/<locale>/) or ALL_LOCALES=1.
 */
export const BROWSER_LOCALES: readonly Locale[] = process.env.UPDATE_SCREENSHOTS === '1' || process.env.ALL_LOCALES === '1' ? LOCALES : ['en', 'de', 'ja', 'ar']

type Catalogue = { [key: string]: string | Catalogue }
const catalogues = Object.fromEntries(LOCALES.map((code) => [code, JSON.parse(readFileSync(join(ROOT, 'i18n', 'locales', `${code}.json`), 'utf8')) as Catalogue]))

/** A message of a catalogue as written (placeholders left as they are). */
export function message(code: Locale, key: string): string {
  let node: string | Catalogue = catalogues[code]!
  for (const part of key.split('.')) node = (node as Catalogue)[part]!
  if (typeof node !== 'string') throw new Error(`${key} is not a message`)
  return node
}

/**
 * Elements in the page's header and main area whose content is wider than their box, and whether
 * the page scrolls sideways. A text field is left out: its value scrolls inside it by design (a
 * raw API token is longer than a phone is wide), and the field itself stays within the page.
 */
export async function overflowing(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const wide: string[] = []
    for (const el of Array.from(document.querySelectorAll<HTMLElement>('header *, main *'))) {
      if (el.clientWidth === 0 || getComputedStyle(el).overflow === 'hidden' || el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement) continue
      if (el.scrollWidth > el.clientWidth + 1) wide.push(`${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}: ${el.scrollWidth} > ${el.clientWidth}`)
    }
    if (document.documentElement.scrollWidth > window.innerWidth) wide.push(`page: ${document.documentElement.scrollWidth} > ${window.innerWidth}`)
    return wide
  })
}
