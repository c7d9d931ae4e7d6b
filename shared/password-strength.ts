/**
 * Password strength estimated by zxcvbn-ts (pattern matching against common passwords, keyboard
 * walks, repeats, sequences, dates and the person's own details) instead of composition rules:
 * NIST SP 800-63B §3.1.1.2 asks verifiers to refuse passwords that are commonly used, expected or
 * context-specific, and to say why. The IAM refuses below `password.policy.minScore`; the pages
 * run this same file in the browser (lazily) for the meter, so both judge a password alike.
 *
 * Browser-safe on purpose: no Node imports (the NFKC step is inlined, hasher.ts pulls Argon2).
 */
import { ZxcvbnFactory, type TranslationKeys } from '@zxcvbn-ts/core'
import { adjacencyGraphs, dictionary } from '@zxcvbn-ts/language-common'

export type StrengthScore = 0 | 1 | 2 | 3 | 4

export interface PasswordStrength {
  score: StrengthScore
  /** a word for the score, so the meter never speaks in colour alone */
  label: string
  /** what makes it guessable, when zxcvbn found a reason */
  warning: string | null
  suggestions: string[]
  /**
   * The same advice as zxcvbn-ts's keys (`warnings.<key>`, `suggestions.<key>` of ENGLISH below), which
   * the pages say in the person's language (`passwordStrength.*` of i18n/locales); the sentences
   * above are the English the IAM's refusal carries.
   */
  warningKey: string | null
  suggestionKeys: string[]
}

/** zxcvbn's scores as a person reads them (0 and 1 both fall to online guessing); the pages' are `passwordStrength.score.<n>`. */
export const STRENGTH_LABELS: Readonly<Record<StrengthScore, string>> = { 0: 'Very weak', 1: 'Weak', 2: 'Fair', 3: 'Strong', 4: 'Very strong' }

// zxcvbn-ts returns keys; these are the sentences. Its English package would bring a large
// dictionary of English words along with them, for a few kilobytes of text.
export const ENGLISH: TranslationKeys = {
  warnings: {
    straightRow: 'A row of keys on the keyboard is easy to guess.',
    keyPattern: 'A short keyboard pattern is easy to guess.',
    simpleRepeat: 'A repeated character like "aaa" is easy to guess.',
    extendedRepeat: 'Repeated groups like "abcabcabc" are easy to guess.',
    sequences: 'A sequence like "abc" or "6543" is easy to guess.',
    recentYears: 'Recent years are easy to guess.',
    dates: 'Dates are easy to guess.',
    topTen: 'This is one of the ten most used passwords.',
    topHundred: 'This is one of the hundred most used passwords.',
    common: 'This is a commonly used password.',
    similarToCommon: 'This is very like a commonly used password.',
    wordByItself: 'A single word is easy to guess.',
    namesByThemselves: 'Names on their own are easy to guess.',
    commonNames: 'Common names and surnames are easy to guess.',
    userInputs: 'It contains your name or email address.',
    pwned: 'This password appeared in a data breach.',
  },
  suggestions: {
    l33t: 'Swapping letters for look-alikes ("@" for "a") does not help much.',
    reverseWords: 'A common word spelled backwards is still easy to guess.',
    allUppercase: 'Capitalise some letters, not all of them.',
    capitalization: 'Capitalise more than the first letter.',
    dates: 'Leave out dates and years that are tied to you.',
    recentYears: 'Leave out recent years.',
    associatedYears: 'Leave out years that are tied to you.',
    sequences: 'Leave out common sequences.',
    repeated: 'Leave out repeated words and characters.',
    longerKeyboardPattern: 'Use longer keyboard patterns with several changes of direction.',
    anotherWord: 'Add more words that are less common.',
    useWords: 'Use several unrelated words; a passphrase is easy to remember and hard to guess.',
    noNeed: 'You do not need symbols, digits or capital letters, only length and unusual words.',
    pwned: 'Choose a password you do not use anywhere else.',
  },
  timeEstimation: {
    ltSecond: 'less than a second',
    second: '{base} second',
    seconds: '{base} seconds',
    minute: '{base} minute',
    minutes: '{base} minutes',
    hour: '{base} hour',
    hours: '{base} hours',
    day: '{base} day',
    days: '{base} days',
    month: '{base} month',
    months: '{base} months',
    year: '{base} year',
    years: '{base} years',
    centuries: 'centuries',
  },
}

// Building the ranked dictionaries (about 30k passwords and the diceware list) is done once per
// process or page, on first use. The Levenshtein matcher stays off: it compares the whole password
// with every dictionary entry, many times the CPU of a check without it, synchronously, which
// blocks the IAM's event loop for every other request and lets parallel sign-ups time out each
// other's breach lookups (figures: docs/performance.md, "Checks that cost CPU on purpose").
// The matching work grows faster than the length, so only the first ANALYSED_LENGTH characters are
// scored. Characters past them can only add
// guesses, so the estimate errs towards refusing, and 64 characters reaching score 3 is easy.
const ANALYSED_LENGTH = 64
// The estimator is given each key as its own "translation", so its feedback is the keys; the English
// sentences are looked up here, and a page looks up its language's (one estimate, both words).
const keysOf = <K extends string>(sentences: Record<K, string>) => Object.fromEntries(Object.keys(sentences).map((key) => [key, key])) as Record<K, string>
const KEYS: TranslationKeys = { warnings: keysOf(ENGLISH.warnings), suggestions: keysOf(ENGLISH.suggestions), timeEstimation: ENGLISH.timeEstimation }
const englishOf = (sentences: Record<string, string>, key: string): string => (Object.hasOwn(sentences, key) ? sentences[key]! : key)

let factory: ZxcvbnFactory | undefined
const getFactory = () => (factory ??= new ZxcvbnFactory({ dictionary, graphs: adjacencyGraphs, translations: KEYS, maxLength: ANALYSED_LENGTH }))

/**
 * The words of a person's own details that a guesser would try first: the email, its local part
 * and the pieces of it and of the name (split at dots, dashes, plus signs, spaces).
 */
export function userInputsOf(details: { email?: string | null; name?: string | null; siteName?: string | null }): string[] {
  const inputs = new Set<string>()
  const add = (value: string) => {
    const v = value.trim().toLowerCase()
    if (v.length >= 3) inputs.add(v)
  }
  const email = details.email?.trim() ?? ''
  if (email) {
    add(email)
    const local = email.split('@')[0] ?? ''
    add(local)
    for (const part of local.split(/[._+-]+/)) add(part)
  }
  for (const part of (details.name ?? '').split(/[\s._-]+/)) add(part)
  if (details.name) add(details.name.replace(/\s+/g, ''))
  if (details.siteName) add(details.siteName)
  return [...inputs]
}

/** The score of `password` (NFKC-normalised, as it is hashed) with the person's details as words to avoid. */
export function estimatePasswordStrength(password: string, userInputs: string[] = []): PasswordStrength {
  const result = getFactory().check(password.normalize('NFKC'), userInputs)
  const score = result.score as StrengthScore
  const warningKey = result.feedback.warning || null
  const suggestionKeys = result.feedback.suggestions
  return {
    score,
    label: STRENGTH_LABELS[score],
    warning: warningKey && englishOf(ENGLISH.warnings, warningKey),
    suggestions: suggestionKeys.map((key) => englishOf(ENGLISH.suggestions, key)),
    warningKey,
    suggestionKeys,
  }
}

/** The sentence a refusal carries: zxcvbn's warning, else its first suggestion, else a general one. */
export function weakPasswordReason(strength: PasswordStrength): string {
  const why = strength.warning ?? strength.suggestions[0] ?? 'Add more words that are less common.'
  return `This password is too easy to guess: ${why}`
}

/** ok when the estimated score reaches `minScore` (0 accepts every password of the right length). */
export function checkPasswordStrength(password: string, userInputs: string[], minScore: number): { ok: true } | { ok: false; reason: string; strength: PasswordStrength } {
  if (minScore <= 0) return { ok: true }
  const strength = estimatePasswordStrength(password, userInputs)
  return strength.score >= minScore ? { ok: true } : { ok: false, reason: weakPasswordReason(strength), strength }
}
