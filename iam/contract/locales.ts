/**
 * The languages the IAM writes in (mails, its own HTML pages) and the gateway's pages offer, and
 * how a request's Accept-Language picks one. Pure: the gateway (server/utils/bff/iam-call.ts) and
 * the IAM share it.
 */

/** Supported languages by their BCP 47 primary subtag (RFC 5646 section 2.2.1). English first: the fallback. */
export const SUPPORTED_LOCALES = ['en', 'de', 'fr', 'es', 'ja', 'ar'] as const
export type Locale = (typeof SUPPORTED_LOCALES)[number]
export const DEFAULT_LOCALE: Locale = 'en'

export const isLocale = (value: unknown): value is Locale => typeof value === 'string' && (SUPPORTED_LOCALES as readonly string[]).includes(value)

/** The writing direction of a language: Arabic is written right to left. */
export const localeDirection = (locale: Locale): 'ltr' | 'rtl' => (locale === 'ar' ? 'rtl' : 'ltr')

/** A header longer than this is read only up to here: nobody lists more languages than fit. */
export const ACCEPT_LANGUAGE_MAX = 200

// language-range [; q=qvalue] (RFC 9110 section 12.5.4, RFC 4647 section 2.1): letters and digits
// in subtags of 1 to 8, or `*`; q from 0 to 1 with at most three decimals
const RANGE = /^(\*|[A-Za-z]{1,8}(?:-[A-Za-z0-9]{1,8})*)$/
const QVALUE = /^q=(0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/i

/**
 * The supported language that best matches an Accept-Language header (RFC 9110 section 12.5.4):
 * ranges by falling q-value (the header's order breaks ties), each matched by its primary subtag
 * (`de-CH` is German, `ar-EG` Arabic). `*`, q=0, an unsupported language or an unreadable header
 * give English.
 */
export function negotiateLocale(header: string | null | undefined): Locale {
  if (!header) return DEFAULT_LOCALE
  const ranges: { tag: string; q: number; order: number }[] = []
  header
    .slice(0, ACCEPT_LANGUAGE_MAX)
    .split(',')
    .forEach((part, order) => {
      const [range, ...params] = part.split(';').map((s) => s.trim())
      if (!range || !RANGE.test(range)) return
      let q = 1
      for (const param of params) {
        const match = QVALUE.exec(param)
        if (!match) return
        q = Number(match[1])
      }
      if (q > 0) ranges.push({ tag: range.toLowerCase(), q, order })
    })
  ranges.sort((a, b) => b.q - a.q || a.order - b.order)
  for (const { tag } of ranges) {
    const primary = tag.split('-')[0]
    if (isLocale(primary)) return primary
  }
  return DEFAULT_LOCALE
}

/**
 * The language of a mail about an account: the one its owner chose (users.locale), else the one
 * the request asked for, else English.
 */
export function chooseLocale(accountLocale: string | null | undefined, requestLocale: Locale | null | undefined): Locale {
  if (isLocale(accountLocale)) return accountLocale
  return requestLocale ?? DEFAULT_LOCALE
}
