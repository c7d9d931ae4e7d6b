/**
 * Notices for what a person should still hear after a password was accepted: the `warnings` codes
 * of the IAM's success bodies (iam/http/respond.ts withWarnings), relayed by the BFF. A page that
 * moves on after success (sign-up, reset) leaves them in `useFlashNotices`; the layout shows them
 * once on the next page. A no-JS form post carries them as `?notice=<code>` instead.
 */
const NOTICES: Record<string, string> = {
  breach_check_skipped:
    'We could not check this password against known breaches right now, so it was accepted unchecked. If you use it anywhere else, choose a new one on your account page.',
}

/** The sentences for known codes (a string or a list of them); unknown codes are dropped. */
export function noticesFor(codes: unknown): string[] {
  const list = Array.isArray(codes) ? codes : [codes]
  return [...new Set(list.flatMap((code) => (typeof code === 'string' && Object.hasOwn(NOTICES, code) ? [NOTICES[code]!] : [])))]
}

/** Notices waiting for the next page (shared state survives a client-side navigation). */
export const useFlashNotices = () => useState<string[]>('flash-notices', () => [])
