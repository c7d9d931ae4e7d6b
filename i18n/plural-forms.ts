/**
 * Plural forms of the page catalogues (docs/i18n.md): a counted message is written with vue-i18n's
 * `|` between its forms, one form per CLDR plural category of its language, in the fixed order of
 * PLURAL_ORDER (English "one | other", French and Spanish "one | many | other", Japanese a single
 * form, Arabic all six). Which form a number takes is Intl.PluralRules' answer, so each language
 * gets its real rule (Arabic 3 to 10 is "few", 11 to 99 "many"), not vue-i18n's English-shaped default.
 */

/** The CLDR categories in the order a message lists its forms. */
export const PLURAL_ORDER = ['zero', 'one', 'two', 'few', 'many', 'other'] as const

/** The plural categories `locale` uses, in PLURAL_ORDER: the forms its counted messages have. */
export function pluralCategories(locale: string): string[] {
  const used = new Set<string>(new Intl.PluralRules(locale).resolvedOptions().pluralCategories)
  return PLURAL_ORDER.filter((category) => used.has(category))
}

/**
 * The index of the form for `count` in a message of `formCount` forms. A message with fewer forms
 * than its language has (a catalogue the test did not hold) takes its last form, the "other".
 */
export function pluralIndex(locale: string, count: number, formCount: number): number {
  const index = pluralCategories(locale).indexOf(new Intl.PluralRules(locale).select(Math.abs(count)))
  return index >= 0 && index < formCount ? index : formCount - 1
}
