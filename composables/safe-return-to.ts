/**
 * Return-to targets after sign-in are same-origin paths only: `/x`, never `//x` (scheme-relative),
 * `/\x` (browsers read `\` as `/`), absolute URLs, or anything with control characters. Pure: the
 * pages and the BFF's no-JS form posts share it.
 */

const BASE = 'http://return-to.invalid'

/** `value` as the URL parser resolves it against a fixed origin, or null when it is not a plain same-origin path. */
function normalisePath(value: string): string | null {
  if (value.length === 0 || value.length > 512) return null
  if (!value.startsWith('/') || value.startsWith('//') || value.startsWith('/\\')) return null
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f\\]/.test(value)) return null
  // The URL parser is what the browser will apply: the origin must survive it unchanged.
  let url: URL
  try {
    url = new URL(value, BASE)
  } catch {
    return null
  }
  if (url.origin !== BASE) return null
  // An encoded `/` or `\` in the path turns into a separator for whoever decodes it next (a router,
  // a proxy): `/%2F%2Fevil.com` is `//evil.com` one decoding later.
  if (/%(?:2f|5c)/i.test(url.pathname)) return null
  return url.pathname + url.search + url.hash
}

/**
 * `value` when it is a safe same-origin path (normalised), else `fallback`. The normalised form must
 * itself be safe and stable: dot segments are resolved once here and again by the browser, and one
 * resolution turns `/.//evil.com` into the scheme-relative `//evil.com`. A fixed point cannot change
 * on the next resolution, so `safeReturnTo(safeReturnTo(x)) === safeReturnTo(x)`.
 */
export function safeReturnTo(value: unknown, fallback = '/account'): string {
  if (typeof value !== 'string') return fallback
  const once = normalisePath(value)
  if (once === null || normalisePath(once) !== once) return fallback
  return once
}
