import { waitInWords } from './useBff'

/** Messages for the `?error=` codes no-JS form posts come back with (server/utils/bff/input.ts formErrorCode). */
const MESSAGES: Record<string, string> = {
  invalid: 'Please check the form and try again.',
  invalid_credentials: 'The email or password is incorrect.',
  forbidden: 'This request was refused. If you think this is a mistake, contact support.',
  conflict: 'An account with this email address already exists.',
  rate_limited: 'Too many attempts. Wait a few minutes and try again.',
  unavailable: 'The sign-in service is unavailable right now. Please try again shortly.',
  mfa_required: 'For your security we sent a sign-in link to your email. Open it to continue.',
  second_factor_needs_js: 'This account uses two-step sign-in, which needs JavaScript in this browser. Turn it on and sign in again.',
  // the sign-in page's restore link for an account scheduled for deletion (server/api/auth/restore-link.post.ts)
  restore_expired: 'This request for the restore link has expired or was already used. Sign in again to ask for it.',
  restore_not_pending: 'This account is no longer scheduled for deletion: sign in with your password.',
  restore_late: 'The time to undo the deletion has passed: the account is erased, or is about to be. You can sign up again with the same address.',
}

/**
 * The sentence for a form error code, or null for none/unknown codes. `retry`: the wait in seconds a
 * refused form post came back with (`?retry=`), said in words for `rate_limited`.
 */
export function formErrorMessage(code: unknown, retry?: unknown): string | null {
  if (code === 'rate_limited' && typeof retry === 'string' && /^\d{1,9}$/.test(retry)) return `Too many attempts. Try again in ${waitInWords(Number(retry))}.`
  return typeof code === 'string' ? (MESSAGES[code] ?? null) : null
}

/** The length of every code the IAM emails (the one-time code of its magic-link mails). */
export const EMAILED_CODE_DIGITS = 7

/** What is wrong with a typed emailed code, in words; undefined when it has the right shape. */
export function emailedCodeProblem(value: string): string | undefined {
  return /^\d{7}$/.test(value.trim()) ? undefined : `Enter the ${EMAILED_CODE_DIGITS}-digit code from the email.`
}

/** Moves keyboard focus to the first invalid field, else to the form's alert, after the DOM updated. */
export async function focusFirstProblem(): Promise<void> {
  await nextTick()
  if (typeof document === 'undefined') return
  const target = document.querySelector<HTMLElement>('[aria-invalid="true"]') ?? document.querySelector<HTMLElement>('.alert[role="alert"]')
  target?.focus()
}
