import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { checkPasswordStrength, ENGLISH, estimatePasswordStrength, userInputsOf } from '../../shared/password-strength'

const LOCALES = ['en', 'de', 'es', 'fr', 'ja', 'ar']
type StrengthWords = { score: Record<string, string>; warnings: Record<string, string>; suggestions: Record<string, string> }
const wordsOf = (locale: string) => (JSON.parse(readFileSync(join(process.cwd(), 'i18n', 'locales', `${locale}.json`), 'utf8')) as { passwordStrength: StrengthWords }).passwordStrength

const alice = userInputsOf({ email: 'alice.smith@example.com', name: 'Alice Smith' })

describe('password strength (zxcvbn-ts, password.policy.minScore)', () => {
  it('refuses a long run of one character however long it is', () => {
    const verdict = checkPasswordStrength('aaaaaaaaaaaa', [], 3)
    expect(verdict).toEqual({
      ok: false,
      reason: 'This password is too easy to guess: A repeated character like "aaa" is easy to guess.',
      strength: expect.objectContaining({ score: 0, label: 'Very weak' }),
    })
  })

  it('refuses a common password with a few digits added', () => {
    const verdict = checkPasswordStrength('password123456', [], 3)
    expect(verdict.ok).toBe(false)
    expect(estimatePasswordStrength('password123456').score).toBeLessThan(3)
  })

  it('accepts a passphrase of several words (the suite strong password)', () => {
    expect(checkPasswordStrength('correct horse battery staple 42', alice, 3)).toEqual({ ok: true })
    expect(estimatePasswordStrength('correct horse battery staple 42', alice)).toMatchObject({ score: 4, label: 'Very strong', warning: null })
  })

  it('scores the person own email address as a password very weak, and says why', () => {
    const verdict = checkPasswordStrength('alice.smith@example.com', alice, 3)
    expect(verdict).toMatchObject({ ok: false, reason: 'This password is too easy to guess: It contains your name or email address.' })
    // without the person details the same text looks strong: the user inputs are what refuse it
    expect(estimatePasswordStrength('alice.smith@example.com').score).toBeGreaterThanOrEqual(3)
  })

  it('refuses the name with a number appended when the name is a user input', () => {
    expect(checkPasswordStrength('alicesmith1234', alice, 3).ok).toBe(false)
  })

  it('judges the NFKC form, as the hasher stores it', () => {
    // full-width letters fold to "aaaaaaaaaaaa"
    expect(estimatePasswordStrength('ａａａａａａａａａａａａ').score).toBe(0)
  })

  it('a minScore of 0 accepts every password', () => {
    expect(checkPasswordStrength('aaaaaaaaaaaa', [], 0)).toEqual({ ok: true })
  })

  it('takes the email, its local part and its pieces, and the name pieces as user inputs', () => {
    expect(userInputsOf({ email: 'Alice.Smith+id@Example.com', name: 'Alice  Smith' }).sort()).toEqual(
      ['alice', 'alice.smith+id', 'alice.smith+id@example.com', 'alicesmith', 'smith'].sort(),
    )
  })

  it("gives the advice as the estimator's keys beside its English sentences", () => {
    expect(estimatePasswordStrength('aaaaaaaaaaaa')).toMatchObject({
      warningKey: 'simpleRepeat',
      warning: ENGLISH.warnings.simpleRepeat,
      suggestionKeys: ['anotherWord', 'repeated'],
      suggestions: [ENGLISH.suggestions.anotherWord, ENGLISH.suggestions.repeated],
    })
    expect(estimatePasswordStrength('correct horse battery staple 42', alice)).toMatchObject({ warningKey: null, suggestionKeys: [] })
  })
})

describe("the strength meter's words in every language of the pages", () => {
  it.each(LOCALES)('%s has a sentence for every score, warning and suggestion the estimator can give', (locale) => {
    const words = wordsOf(locale)
    expect(Object.keys(words.score).sort()).toEqual(['0', '1', '2', '3', '4'])
    expect(Object.keys(words.warnings).sort()).toEqual(Object.keys(ENGLISH.warnings).sort())
    expect(Object.keys(words.suggestions).sort()).toEqual(Object.keys(ENGLISH.suggestions).sort())
    for (const sentence of [...Object.values(words.score), ...Object.values(words.warnings), ...Object.values(words.suggestions)]) expect(sentence.trim()).not.toBe('')
  })

  it("English says what the IAM's refusal says", () => {
    const words = wordsOf('en')
    expect(words.warnings).toEqual(ENGLISH.warnings)
    // a literal @ is written {'@'} in the catalogue (vue-i18n's linked-message sign)
    expect(Object.fromEntries(Object.entries(words.suggestions).map(([key, sentence]) => [key, sentence.replaceAll("{'@'}", '@')]))).toEqual(ENGLISH.suggestions)
    expect(Object.values(words.score)).toEqual(['Very weak', 'Weak', 'Fair', 'Strong', 'Very strong'])
  })
})
