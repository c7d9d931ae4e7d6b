/**
 * The "check your inbox" notice the account page shows right after a sign-up. With JavaScript the
 * sign-up page leaves a flag in shared state (it survives the client-side navigation, like
 * `useFlashNotices`); a no-JS sign-up form post lands on `/account?signedUp=1` instead.
 */

/** Set by the sign-up page, taken once by the account page. */
export const useSignedUpFlash = () => useState<boolean>('flash-signed-up', () => false)

/**
 * `ada@example.com` -> `a***@example.com`: enough for the person to recognise the address on a
 * screen someone else may see, the same form the IAM uses for `sentTo`.
 */
export function maskedAddress(email: string): string {
  const at = email.lastIndexOf('@')
  if (at < 1) return email
  return `${email[0]}***${email.slice(at)}`
}
