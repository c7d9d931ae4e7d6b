import { describe, expect, it } from 'vitest'
import { chooseLocale, localeDirection, negotiateLocale, SUPPORTED_LOCALES } from '../../iam/contract/locales'

describe('the language a request asks for (Accept-Language)', () => {
  it('takes the supported language of the highest q-value, by its primary subtag', () => {
    expect(negotiateLocale('de-CH,de;q=0.9,en;q=0.5')).toBe('de')
    expect(negotiateLocale('ar-EG')).toBe('ar')
    expect(negotiateLocale('en;q=0.5, ja;q=0.8')).toBe('ja')
    expect(negotiateLocale('fr-CA;q=0.7, es-MX;q=0.9, de;q=0.1')).toBe('es')
  })

  it('breaks a tie of q-values by the order of the header', () => {
    expect(negotiateLocale('fr;q=0.8, de;q=0.8')).toBe('fr')
  })

  it('skips unsupported languages and falls back to the next supported one', () => {
    expect(negotiateLocale('pt-BR, it;q=0.9, ja;q=0.3')).toBe('ja')
  })

  it('answers English for an unsupported language, a wildcard, an empty or unreadable header', () => {
    for (const header of ['pt-BR', '*', '', undefined, null, 'garbage!!', ';;;,,,', 'de;q=2', 'de;q=abc', 'x'.repeat(300)]) {
      expect(negotiateLocale(header)).toBe('en')
    }
  })

  it('never takes a language refused with q=0', () => {
    expect(negotiateLocale('de;q=0, fr;q=0.1')).toBe('fr')
    expect(negotiateLocale('de;q=0')).toBe('en')
  })

  it('reads only the first 200 characters of a long header', () => {
    expect(negotiateLocale(`${'zz;q=0.5,'.repeat(30)}de`)).toBe('en')
    expect(negotiateLocale(`de,${'zz;q=0.5,'.repeat(30)}`)).toBe('de')
  })
})

describe('the language of a mail about an account', () => {
  it('is the account’s own choice, else the request’s, else English', () => {
    expect(chooseLocale('fr', 'de')).toBe('fr')
    expect(chooseLocale(null, 'de')).toBe('de')
    expect(chooseLocale(undefined, undefined)).toBe('en')
    // a stored value that is no longer supported counts as not chosen
    expect(chooseLocale('pt', 'ja')).toBe('ja')
  })

  it('writes Arabic alone right to left', () => {
    expect(SUPPORTED_LOCALES.filter((l) => localeDirection(l) === 'rtl')).toEqual(['ar'])
  })
})
