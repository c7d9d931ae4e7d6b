/**
 * The pieces of a mail that depend on the language besides its sentences: named placeholders,
 * counted words (Intl.PluralRules), durations, moments (Intl.DateTimeFormat, in the reader's time
 * zone when it is known, else in UTC, and saying which),
 * lists (Intl.ListFormat) and what a custom MFA flow confirms. Pure.
 */
import { DEFAULT_LOCALE, type Locale } from '../../contract/locales'
import { readTimeZone } from '../../contract/time-zones'
import { CATALOGUES } from './catalogue/catalogues'
import type { Plural } from './catalogue/plural'

/** `{name}` in a catalogue text: letters and digits, starting with a letter. */
export const PLACEHOLDER = /\{([A-Za-z][A-Za-z0-9]*)\}/g

/** The placeholders a text names, sorted, each once. */
export function placeholdersOf(text: string): string[] {
  return [...new Set([...text.matchAll(PLACEHOLDER)].map((m) => m[1]!))].sort()
}

/** Fills the named placeholders; one without a value stays as written (a test catches it). */
export function fill(text: string, values: Readonly<Record<string, string | number>>): string {
  return text.replace(PLACEHOLDER, (whole, name: string) => (Object.hasOwn(values, name) ? String(values[name]) : whole))
}

// Intl objects are costly to build and immutable: one per language
const numberFormats = new Map<Locale, Intl.NumberFormat>()
const pluralRules = new Map<Locale, Intl.PluralRules>()

/** A counted message: the language's plural category of `count` picks the form, `{count}` the number in its digits. */
export function counted(locale: Locale, forms: Plural, count: number, values: Readonly<Record<string, string | number>> = {}): string {
  let rules = pluralRules.get(locale)
  if (!rules) pluralRules.set(locale, (rules = new Intl.PluralRules(locale)))
  let numbers = numberFormats.get(locale)
  if (!numbers) numberFormats.set(locale, (numbers = new Intl.NumberFormat(locale)))
  const form = forms[rules.select(count)] ?? forms.other
  return fill(form, { ...values, count: numbers.format(count) })
}

/** A lifetime in minutes, at least one. */
export const minutesOf = (locale: Locale, ms: number): string => counted(locale, CATALOGUES[locale].units.minutes, Math.max(1, Math.round(ms / 60_000)))

/** Whole days or hours when a link lives that long, else minutes. */
export function durationOf(locale: Locale, ms: number): string {
  const { units } = CATALOGUES[locale]
  if (ms >= 48 * 3_600_000) return counted(locale, units.days, Math.round(ms / 86_400_000))
  if (ms >= 2 * 3_600_000) return counted(locale, units.hours, Math.round(ms / 3_600_000))
  return minutesOf(locale, ms)
}

// English as a person in most of the world reads a date: "29 November 2026" (en-GB), not "November 29"
const intlTag = (locale: Locale) => (locale === 'en' ? 'en-GB' : locale)

/**
 * A moment as people read it, in the reader's time zone named by its IANA name: "29 November 2026,
 * 15:05 (Europe/Berlin)", the offset of that day (summer time included) from the runtime's time
 * zone database. Without a zone the IAM knows (`timeZone` null, or one the runtime does not know:
 * iam/contract/time-zones.ts) it is UTC and says so, "29 November 2026, 14:05 UTC", as a mail
 * read far from the server must not pass the server's time for the reader's. Never the ISO form a
 * log would print. The name rather than an abbreviation: "CST" is three different zones.
 */
export function humanDate(at: Date, locale: Locale = DEFAULT_LOCALE, timeZone?: string | null): string {
  const zone = readTimeZone(timeZone)
  const inZone = zone ?? 'UTC'
  const date = new Intl.DateTimeFormat(intlTag(locale), { day: 'numeric', month: 'long', year: 'numeric', timeZone: inZone }).format(at)
  const time = new Intl.DateTimeFormat(intlTag(locale), { hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZone: inZone }).format(at)
  const { layout } = CATALOGUES[locale]
  return zone === null || zone === 'UTC' ? fill(layout.dateTime, { date, time }) : fill(layout.dateTimeZone, { date, time, zone })
}

/** "a, b and c" in the language's own way. */
export const listOf = (locale: Locale, items: readonly string[]): string => new Intl.ListFormat(intlTag(locale), { type: 'conjunction' }).format(items)

/** "a, b" (no conjunction): names the reader matches against a list of their own. */
export const namesOf = (locale: Locale, items: readonly string[]): string => new Intl.ListFormat(intlTag(locale), { type: 'unit', style: 'short' }).format(items)

/** "a or b" in the language's own way. */
export const eitherOf = (locale: Locale, items: readonly string[]): string => new Intl.ListFormat(intlTag(locale), { type: 'disjunction' }).format(items)

/**
 * What a custom MFA flow confirms, in words: the email change by its name, an app's own reason
 * (`PAYMENT_CONFIRM`) as the app's label in words and the language's quotes (“payment confirm”),
 * never the raw identifier. The app's label is its own words: not translated.
 */
export function actionInWords(reason: string, locale: Locale = DEFAULT_LOCALE): string {
  const { action } = CATALOGUES[locale]
  if (reason.toLowerCase() === 'change_email') return action.changeEmail
  return fill(action.quoted, { label: reason.toLowerCase().replace(/_+/g, ' ').trim() })
}

/** Why the unusual-sign-in check asked, in the language; a type without its own words gets the general ones. */
export function anomalyInWords(type: string, locale: Locale): string {
  const { anomaly } = CATALOGUES[locale]
  return Object.hasOwn(anomaly, type) && type !== 'other' ? anomaly[type as keyof typeof anomaly] : anomaly.other
}
