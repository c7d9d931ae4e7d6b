/**
 * The shape of a mail catalogue's counted messages: one form per plural category a language uses
 * (Intl.PluralRules, CLDR plural rules); `other` always, the rest as the language needs them
 * (English one/other, Arabic zero/one/two/few/many/other, Japanese other alone).
 */
export type Plural = { other: string } & Partial<Record<Exclude<Intl.LDMLPluralRule, 'other'>, string>>

/** Marks a counted message, so a catalogue's type accepts every language's set of forms. */
export const plural = (forms: Plural): Plural => forms
