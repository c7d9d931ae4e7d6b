/**
 * One rule for every path that crosses a trust boundary (docs/architecture.md, "Trust
 * boundaries"): a forwarder (the OpenID Provider's, the API proxy, the BFF's IAM calls) sends a
 * request on only for the mount it matched, and only when the path means the same thing to every
 * URL parser on the way. A path is canonical when no step of normalisation could change it:
 *
 * - it is absolute, and every character is one RFC 3986 allows in a path (`pchar` and `/`): no
 *   backslash, space, control or non-ASCII character, quote, `<`, `>`, `?` or `#` (WHATWG URL
 *   parsing turns `\` into `/` for http URLs, drops tabs and newlines, and percent-encodes the rest,
 *   so the path signed would not be the path sent);
 * - no segment is `.` or `..`, percent-encoded or not (`%2e%2e`, `.%2e`: RFC 3986 section 6.2.2.3
 *   and WHATWG URL both resolve them, so `/oidc/%2e%2e/x` reaches `/x`);
 * - no encoded slash, backslash or NUL (`%2f`, `%5c`, `%00`), which a server behind may decode into
 *   a segment boundary or a string end;
 * - no double encoding (`%25` followed by two hex digits: `%252e` is `%2e` after one decoding, and
 *   a second decoder down the line makes it `.`), and no malformed escape;
 * - no empty segment but a trailing one (`//x` is a network-path reference to host `x`).
 *
 * Pure string work: the gateway, the IAM client and the IAM all import it.
 */

const PATH_CHARACTERS = /^[A-Za-z0-9\-._~!$&'()*+,;=:@/%]*$/
const ENCODED_SEPARATOR = /%(?:2f|5c|00)/i
const DOUBLE_ENCODED = /%25[0-9a-f]{2}/i
const MALFORMED_ESCAPE = /%(?![0-9a-f]{2})/i
const DOT_SEGMENT = /^(?:\.|%2e){1,2}$/i

/** Whether `path` (a request target's path, still percent-encoded) is canonical; see above. */
export function isCanonicalPath(path: string): boolean {
  if (!path.startsWith('/')) return false
  if (!PATH_CHARACTERS.test(path) || ENCODED_SEPARATOR.test(path) || DOUBLE_ENCODED.test(path) || MALFORMED_ESCAPE.test(path)) return false
  const segments = path.split('/')
  for (let i = 1; i < segments.length; i++) {
    const segment = segments[i]!
    if (segment === '' && i !== segments.length - 1) return false
    if (DOT_SEGMENT.test(segment)) return false
  }
  return true
}

/** Whether `path` is `mount` itself or lies under it (`/oidc`, `/oidc/...`; never `/oidcx`). */
export function isUnderMount(path: string, mount: string): boolean {
  return path === mount || path.startsWith(`${mount}/`)
}

/** A request target split at its first `?`: the raw path and the raw query (without `?`). */
export function splitTarget(target: string): { path: string; query: string } {
  const q = target.indexOf('?')
  return q === -1 ? { path: target, query: '' } : { path: target.slice(0, q), query: target.slice(q + 1) }
}

/**
 * Whether a request target (path + query) may leave a forwarder mounted at `mount`: its path is
 * canonical and under the mount, and its query has no control character, space or fragment.
 */
export function isForwardableTarget(target: string, mount: string): boolean {
  const { path, query } = splitTarget(target)
  // eslint-disable-next-line no-control-regex -- a query with control characters is refused
  if (/[\x00-\x20\x7f#]/.test(query)) return false
  return isCanonicalPath(path) && isUnderMount(path, mount)
}
