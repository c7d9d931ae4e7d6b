/**
 * The messages of the sign-in forms, chosen by code and said in the page's language: `t` is the
 * page's translate function (useI18n), `locale` its language for the numbers in them (Intl).
 */

/** The translate function of a page (vue-i18n's `t`, as useI18n returns it). */
export type Translate = (key: string, named?: Record<string, unknown>) => string

/** The catalogue key of each `?error=` code no-JS form posts come back with (server/utils/bff/input.ts formErrorCode). */
const FORM_ERROR_KEYS: Record<string, string> = {
  invalid: 'formError.invalid',
  invalid_credentials: 'formError.invalidCredentials',
  forbidden: 'formError.forbidden',
  conflict: 'formError.conflict',
  rate_limited: 'formError.rateLimited',
  unavailable: 'formError.unavailable',
  mfa_required: 'formError.mfaRequired',
  second_factor_needs_js: 'formError.secondFactorNeedsJs',
  // the proof-of-work check of sign-up, reset and email sign-in runs in the page (composables/useBotProof.ts)
  bot_check_needs_js: 'botCheck.needsJs',
  // the same check, asked of a password sign-in after recent failures (pages/login.vue)
  bot_check_login_needs_js: 'botCheck.loginNeedsJs',
  // the sign-in page's restore link for an account scheduled for deletion (server/api/auth/restore-link.post.ts)
  restore_expired: 'formError.restoreExpired',
  restore_not_pending: 'formError.restoreNotPending',
  restore_late: 'formError.restoreLate',
}

/**
 * A wait of `seconds` in words of `locale` (Intl units, never hand-built plurals): seconds under a
 * minute, else whole minutes rounded up (the person never comes back too early), hours from two hours on.
 */
export function waitIn(seconds: number, locale: string): string {
  const s = Math.max(1, Math.ceil(seconds))
  const words = (n: number, unit: 'second' | 'minute' | 'hour') => new Intl.NumberFormat(locale, { style: 'unit', unit, unitDisplay: 'long' }).format(n)
  if (s < 60) return words(s, 'second')
  const minutes = Math.ceil(s / 60)
  return minutes < 120 ? words(minutes, 'minute') : words(Math.ceil(minutes / 60), 'hour')
}

/**
 * The sentence for a form error code, or null for none/unknown codes. `retry`: the wait in seconds a
 * refused form post came back with (`?retry=`), said in words for `rate_limited`.
 */
export function formErrorMessage(t: Translate, locale: string, code: unknown, retry?: unknown): string | null {
  if (code === 'rate_limited' && typeof retry === 'string' && /^\d{1,9}$/.test(retry)) return t('formError.rateLimitedWait', { wait: waitIn(Number(retry), locale) })
  return typeof code === 'string' && Object.hasOwn(FORM_ERROR_KEYS, code) ? t(FORM_ERROR_KEYS[code]!) : null
}

/** The length of every code the IAM emails (the one-time code of its magic-link mails). */
export const EMAILED_CODE_DIGITS = 7

/** What is wrong with a typed emailed code, in words; undefined when it has the right shape. */
export function emailedCodeProblem(t: Translate, value: string): string | undefined {
  return /^\d{7}$/.test(value.trim()) ? undefined : t('emailedCode.wrongShape', { digits: EMAILED_CODE_DIGITS })
}

/** Moves keyboard focus to the first invalid field, else to the form's alert, after the DOM updated. */
export async function focusFirstProblem(): Promise<void> {
  await nextTick()
  if (typeof document === 'undefined') return
  const target = document.querySelector<HTMLElement>('[aria-invalid="true"]') ?? document.querySelector<HTMLElement>('.alert[role="alert"]')
  target?.focus()
}
