/**
 * vue-i18n's options beside nuxt.config.ts's `i18n` (which holds the languages and how one is
 * chosen): the plural rule of every language from Intl.PluralRules (i18n/plural-forms.ts), so a
 * counted message such as "{count} session | {count} sessions" has the forms of its own language.
 */
import { SUPPORTED_LOCALES } from '../iam/contract/locales'
import { pluralIndex } from './plural-forms'

export default defineI18nConfig(() => ({
  pluralRules: Object.fromEntries(SUPPORTED_LOCALES.map((code) => [code, (choice: number, choicesLength: number) => pluralIndex(code, choice, choicesLength)])),
}))
