/**
 * Return-to targets after sign-in are same-origin paths only: `/x`, never `//x` (scheme-relative),
 * `/\x` (browsers read `\` as `/`), absolute URLs, or anything with control characters. Pure: the
 * pages and the BFF's no-JS form posts share it.
 */
export function safeReturnTo(value: unknown, fallback = '/account'): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > 512) return fallback
  if (!value.startsWith('/') || value.startsWith('//') || value.startsWith('/\\')) return fallback
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f\\]/.test(value)) return fallback
  // The URL parser is what the browser will apply: the origin must survive it unchanged.
  const base = 'http://return-to.invalid'
  let url: URL
  try {
    url = new URL(value, base)
  } catch {
    return fallback
  }
  if (url.origin !== base) return fallback
  return url.pathname + url.search + url.hash
}
