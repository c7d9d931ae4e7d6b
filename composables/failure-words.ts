/**
 * The pages' sentences for a failed BFF call, in the page's language. They are chosen by the
 * answer's stable `code` (iam/contract/error-codes.ts, server/utils/bff/error-codes.ts): a code the
 * catalogue knows reads `errors.<code>` of i18n/locales/<locale>.json; only a code it does not know
 * (an IAM newer than the pages) falls back to the IAM's English `error` sentence.
 */
import { waitIn } from './form-messages'
import type { BffResult } from './useBff'

/** The `?ended=` codes of composables/session-ended.ts, in the page's catalogue. */
const ENDED_KEYS: Record<string, string> = {
  copied: 'sessionEnded.copied',
  password: 'sessionEnded.password',
  email: 'sessionEnded.email',
  elsewhere: 'sessionEnded.elsewhere',
  expired: 'sessionEnded.expired',
}

/** Codes whose sentence names what the field was refused for: said at the field too, in the language. */
const FIELD_CODES = new Set(['password_rejected', 'passwords_mismatch', 'email_taken', 'email_invalid', 'email_unchanged', 'wrong_password', 'slug_taken', 'role_name_taken', 'already_member', 'locale_unsupported', 'time_zone_unsupported'])

/**
 * The catalogue's sentence per field issue code (iam/contract/field-issues.ts): `count` when the
 * bound is a number of characters or items (a counted message), `limit` when it is a number the
 * sentence names as it is.
 */
const FIELD_ISSUE_KEYS: Record<string, { key: string; counted?: 'count' | 'limit' }> = {
  required: { key: 'formError.fieldRequired' },
  too_long: { key: 'formError.fieldTooLong', counted: 'count' },
  too_short: { key: 'formError.fieldTooShort', counted: 'count' },
  too_many: { key: 'formError.fieldTooMany', counted: 'count' },
  too_few: { key: 'formError.fieldTooFew', counted: 'count' },
  too_large: { key: 'formError.fieldTooLarge', counted: 'limit' },
  too_small: { key: 'formError.fieldTooSmall', counted: 'limit' },
  invalid: { key: 'formError.fieldInvalid' },
}

/** A number of seconds from the body's `retry` (a number, or the Retry-After header's digits). */
function retrySeconds(retry: unknown): number | null {
  if (typeof retry === 'number' && Number.isFinite(retry) && retry >= 0) return retry
  return typeof retry === 'string' && /^\d{1,9}$/.test(retry) ? Number(retry) : null
}

/** The sentences of failed calls, bound to the page's language (call in a component's setup). */
export function useFailureWords() {
  const { t, te, locale } = useI18n()

  /** The sentence of a known code, or null: `errors.<code>` when the catalogue has it. */
  function codeSentence(code: unknown): string | null {
    return typeof code === 'string' && /^[a-z][a-z0-9_]*$/.test(code) && te(`errors.${code}`) ? t(`errors.${code}`) : null
  }

  /** A field's refusal in words, from its code in `fieldIssues` (iam/contract/field-issues.ts); null for a code this page does not know. */
  function fieldIssueSentence(issue: unknown): string | null {
    if (!issue || typeof issue !== 'object') return null
    const { code, limit } = issue as { code?: unknown; limit?: unknown }
    if (typeof code !== 'string' || !Object.hasOwn(FIELD_ISSUE_KEYS, code)) return null
    const key = FIELD_ISSUE_KEYS[code]!
    if (!key.counted) return t(key.key)
    if (typeof limit !== 'number' || !Number.isSafeInteger(limit)) return t('formError.fieldInvalid')
    return key.counted === 'count' ? t(key.key, limit) : t(key.key, { limit: new Intl.NumberFormat(locale.value).format(limit) })
  }

  /**
   * Field messages of a 400 answer: the code's sentence where the code says what was wrong; for
   * `validation_failed`, each field's issue code in words; else (an IAM newer than the pages) the IAM's.
   */
  function fieldErrorsOf(result: BffResult): Record<string, string> {
    const fields = result.body.fields
    if (!fields || typeof fields !== 'object') return {}
    const { code, fieldIssues } = result.body
    const own = typeof code === 'string' && FIELD_CODES.has(code) ? codeSentence(code) : null
    const issues = code === 'validation_failed' && fieldIssues && typeof fieldIssues === 'object' ? fieldIssues : {}
    return Object.fromEntries(
      Object.entries(fields).map(([key, message]) => [key, own ?? (Object.hasOwn(issues, key) ? fieldIssueSentence(issues[key]) : null) ?? String(message)]),
    )
  }

  /** A sentence for the person about a failed call (rate limit with its wait, MFA notice, ended session, the code's words). */
  function describeFailure(result: BffResult): string {
    const { status, body } = result
    if (status === 429) {
      const seconds = retrySeconds(body.retry)
      if (body.code === 'code_entry_locked') return seconds === null ? t('errors.code_entry_locked') : t('errors.codeEntryLockedWait', { wait: waitIn(seconds, locale.value) })
      return seconds === null ? t('errors.rateLimitedLater') : t('formError.rateLimitedWait', { wait: waitIn(seconds, locale.value) })
    }
    if (status === 202 && body.mfa) return t('formError.mfaRequired')
    if (body.signedOut) return t(typeof body.ended === 'string' && Object.hasOwn(ENDED_KEYS, body.ended) ? ENDED_KEYS[body.ended]! : 'sessionEnded.generic')
    if (status === 0) return t('errors.network')
    if (status >= 500) return codeSentence(body.code) ?? t('errors.server')
    const fieldMessages = Object.values(fieldErrorsOf(result))
    if (status === 400 && fieldMessages.length) return [...new Set(fieldMessages)].join(' ')
    if (body.code === 'validation_failed' || body.code === 'bad_request') return t('formError.invalid')
    return codeSentence(body.code) ?? body.error ?? body.reason ?? t('errors.generic')
  }

  /**
   * The banner of a form whose fields show their own messages (`shownFields`): none when every field
   * message has its field on the form, else the ones without a field here, or `describeFailure`.
   */
  function formFailure(result: BffResult, shownFields: readonly string[]): string | null {
    const fields = fieldErrorsOf(result)
    const keys = Object.keys(fields)
    if (result.status !== 400 || keys.length === 0) return describeFailure(result)
    const elsewhere = keys.filter((key) => !shownFields.includes(key))
    return elsewhere.length ? [...new Set(elsewhere.map((key) => fields[key]))].join(' ') : null
  }

  return { describeFailure, formFailure, fieldErrorsOf, codeSentence }
}
