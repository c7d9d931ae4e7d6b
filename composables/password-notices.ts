/**
 * Notices for what a person should still hear after a password was accepted: the `warnings` codes
 * of the IAM's success bodies (iam/http/respond.ts withWarnings), relayed by the BFF. A page that
 * moves on after success (sign-up, reset) leaves them in `useFlashNotices`; the layout shows them
 * once on the next page,
 * in the page's language. A no-JS form post carries them as `?notice=<code>` instead.
 */
const NOTICES: Record<string, string> = {
  breach_check_skipped: 'notices.breachCheckSkipped',
}

/**
 * The catalogue keys (i18n/locales) of the known codes (a string or a list of them); unknown codes
 * are dropped. Keys, not sentences: the page that shows them says them in its language (`t(key)`).
 */
export function noticesFor(codes: unknown): string[] {
  const list = Array.isArray(codes) ? codes : [codes]
  return [...new Set(list.flatMap((code) => (typeof code === 'string' && Object.hasOwn(NOTICES, code) ? [NOTICES[code]!] : [])))]
}

/** Notices waiting for the next page (shared state survives a client-side navigation). */
export const useFlashNotices = () => useState<string[]>('flash-notices', () => [])
