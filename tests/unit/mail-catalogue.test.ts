import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { anomalyReason } from '../../iam/contract/anomaly-reasons'
import { SUPPORTED_LOCALES } from '../../iam/contract/locales'
import { MAIL_KINDS } from '../../iam/contract/mail-templates'
import { CATALOGUES } from '../../iam/features/mail/catalogue/catalogues'
import { en } from '../../iam/features/mail/catalogue/en'
import { counted, durationOf, humanDate, placeholdersOf } from '../../iam/features/mail/format'
import { PAGE_TEXTS } from '../../iam/features/oidc/page-texts'
import { errorPage, pageLocale } from '../../iam/features/oidc/pages'

type Tree = { [key: string]: string | Tree }
const PLURAL_FORMS = new Set(['zero', 'one', 'two', 'few', 'many', 'other'])
const isPlural = (node: Tree) => Object.keys(node).every((k) => PLURAL_FORMS.has(k)) && 'other' in node

/** Every text of a catalogue by its path; a counted message is one entry holding its forms. */
function leaves(node: Tree, path: string[] = []): Map<string, string[]> {
  const out = new Map<string, string[]>()
  for (const [key, value] of Object.entries(node)) {
    const at = [...path, key]
    if (typeof value === 'string') out.set(at.join('.'), [value])
    else if (isPlural(value)) out.set(at.join('.'), Object.values(value) as string[])
    else for (const [k, v] of leaves(value, at)) out.set(k, v)
  }
  return out
}

const english = leaves(en as unknown as Tree)

describe('the mail catalogues', () => {
  it.each(SUPPORTED_LOCALES.filter((l) => l !== 'en'))('%s has every key of English and no other', (locale) => {
    const texts = leaves(CATALOGUES[locale] as unknown as Tree)
    expect([...texts.keys()].sort()).toEqual([...english.keys()].sort())
  })

  it.each(SUPPORTED_LOCALES)('%s names the same placeholders as English in every text', (locale) => {
    for (const [key, forms] of leaves(CATALOGUES[locale] as unknown as Tree)) {
      const wanted = placeholdersOf(english.get(key)!.join(' '))
      // a counted form may leave the number out (Arabic's singular and dual), never add a name
      for (const form of forms) for (const name of placeholdersOf(form)) expect(wanted, `${locale} ${key}: {${name}}`).toContain(name)
      // and together the forms name every one of them
      expect(placeholdersOf(forms.join(' ')), `${locale} ${key}`).toEqual(wanted)
      for (const form of forms) expect(form.trim(), `${locale} ${key}`).not.toBe('')
    }
  })

  it('uses every English key somewhere in the templates', () => {
    const dir = join(__dirname, '../../iam/features/mail')
    const source = ['templates.ts', 'format.ts'].map((f) => readFileSync(join(dir, f), 'utf8')).join('\n')
    expect(readdirSync(join(dir, 'catalogue'))).toContain('en.ts')
    const unused = [...english.keys()].filter((key) => {
      const parts = key.split('.')
      const last = parts.at(-1)!
      // the anomaly types and second-factor changes are looked up by their value, not by name
      if (parts[0] === 'anomaly' || parts[0] === 'secondFactorChanges') return false
      return !new RegExp(`\\b${last}\\b`).test(source)
    })
    expect(unused).toEqual([])
  })

  it('lists in the contract exactly the mail kinds of the catalogue', () => {
    expect([...MAIL_KINDS].sort()).toEqual(Object.keys(en.mails).sort())
  })

  it('says every anomaly reason in English as the pages do (iam/contract/anomaly-reasons.ts)', () => {
    for (const [type, words] of Object.entries(en.anomaly)) {
      if (type !== 'other') expect(anomalyReason(type)).toBe(words)
    }
    expect(anomalyReason('SOMETHING_NEW')).toBe(en.anomaly.other)
  })

  it('counts by the language’s plural rules', () => {
    expect(counted('en', en.units.minutes, 1)).toBe('1 minute')
    expect(counted('en', en.units.minutes, 15)).toBe('15 minutes')
    expect(counted('ar', CATALOGUES.ar.units.minutes, 2)).toBe('دقيقتين')
    expect(counted('ar', CATALOGUES.ar.units.minutes, 5)).toBe('5 دقائق')
    expect(counted('ar', CATALOGUES.ar.units.minutes, 15)).toBe('15 دقيقة')
    expect(durationOf('de', 7 * 86_400_000)).toBe('7 Tagen')
    expect(durationOf('ja', 24 * 3_600_000)).toBe('24 時間')
  })

  it('says a moment in the language, in UTC and saying so', () => {
    const at = new Date('2026-11-29T14:05:09.000Z')
    expect(humanDate(at, 'en')).toBe('29 November 2026, 14:05 UTC')
    expect(humanDate(at, 'de')).toBe('29. November 2026, 14:05 Uhr UTC')
    expect(humanDate(at, 'fr')).toBe('29 novembre 2026 à 14:05 UTC')
    expect(humanDate(at, 'es')).toBe('29 de noviembre de 2026, 14:05 UTC')
    expect(humanDate(at, 'ja')).toBe('2026年11月29日 14:05(UTC)')
    expect(humanDate(at, 'ar')).toContain('UTC')
  })

  it('says a moment in the reader time zone by its name, with the offset of that day (summer time included)', () => {
    // Berlin is UTC+1 in winter and UTC+2 in summer (CET / CEST); New York crosses the date line back
    expect(humanDate(new Date('2026-11-29T14:05:00.000Z'), 'en', 'Europe/Berlin')).toBe('29 November 2026, 15:05 (Europe/Berlin)')
    expect(humanDate(new Date('2026-07-01T14:05:00.000Z'), 'en', 'Europe/Berlin')).toBe('1 July 2026, 16:05 (Europe/Berlin)')
    expect(humanDate(new Date('2026-07-01T02:30:00.000Z'), 'de', 'America/New_York')).toBe('30. Juni 2026, 22:30 Uhr (America/New_York)')
    // the hour that does not exist in Berlin: 01:59 UTC is 02:59 CET, 02:00 UTC is 04:00 CEST (29 March 2026)
    expect(humanDate(new Date('2026-03-29T00:59:00.000Z'), 'en', 'Europe/Berlin')).toBe('29 March 2026, 01:59 (Europe/Berlin)')
    expect(humanDate(new Date('2026-03-29T01:00:00.000Z'), 'en', 'Europe/Berlin')).toBe('29 March 2026, 03:00 (Europe/Berlin)')
    expect(humanDate(new Date('2026-11-29T14:05:00.000Z'), 'ja', 'Asia/Tokyo')).toBe('2026年11月29日 23:05(Asia/Tokyo)')
    // a name in another case is the zone's own name
    expect(humanDate(new Date('2026-11-29T14:05:00.000Z'), 'fr', 'europe/paris')).toBe('29 novembre 2026 à 15:05 (Europe/Paris)')
  })

  it('says a moment in UTC when the zone is unknown, malformed, an offset or none', () => {
    const at = new Date('2026-11-29T14:05:09.000Z')
    for (const zone of ['Mars/Olympus_Mons', 'Europe/Berlin\r\nX-Evil: 1', '+01:00', '', 'x'.repeat(65), null, undefined, 'UTC']) {
      expect(humanDate(at, 'en', zone), String(zone)).toBe('29 November 2026, 14:05 UTC')
    }
  })
})

describe('the words of the provider’s own pages', () => {
  const englishPages = leaves(PAGE_TEXTS.en as unknown as Tree)

  it.each(SUPPORTED_LOCALES)('%s has every key of English with its placeholders', (locale) => {
    const texts = leaves(PAGE_TEXTS[locale] as unknown as Tree)
    expect([...texts.keys()].sort()).toEqual([...englishPages.keys()].sort())
    for (const [key, forms] of texts) expect(placeholdersOf(forms.join(' ')), `${locale} ${key}`).toEqual(placeholdersOf(englishPages.get(key)!.join(' ')))
  })

  it('renders a page in the request’s language with its lang and direction', () => {
    const arabic = errorPage({ error: 'access_denied' }, pageLocale('ar-EG,ar;q=0.9'))
    expect(arabic).toMatch(/^<!DOCTYPE html><html lang="ar" dir="rtl">/)
    expect(arabic).toContain(PAGE_TEXTS.ar.error.access_denied)
    expect(arabic).not.toContain(PAGE_TEXTS.en.error.access_denied)
    const german = errorPage({ error: 'no_such_error', error_description: '<x>' }, pageLocale('de'))
    expect(german).toContain('lang="de" dir="ltr"')
    expect(german).toContain(PAGE_TEXTS.de.error.other)
    expect(german).toContain('Details: &#60;x&#62;')
    expect(errorPage({ error: 'access_denied' }, pageLocale(undefined))).toContain('The sign-in was cancelled.')
  })
})
