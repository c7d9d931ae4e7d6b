/**
 * Store keys that survive unstorage's key normalisation. unstorage rewrites every key it is given
 * (`normalizeKey`: `/` and `\` become `:`, runs of `:` collapse, a leading or trailing `:` goes,
 * everything after `?` is dropped), so `ip:::1` would become `ip:1` and two IPv6 addresses, two
 * request ids or two emails could share one key. Every key part that comes from outside the code
 * (an address, an email, a header value) is encoded here before it reaches the store; a key that
 * unstorage would still rewrite is refused by the store (assertStoreKey), never silently merged.
 */
import { hash } from 'node:crypto'

/** in a `u` pattern a valid pair is one code point, so only a lone half is in Cs */
const LONE_SURROGATE = /\p{Cs}/u

/**
 * One key part, injective over every JS string: base64url of its UTF-8 bytes (alphabet
 * [A-Za-z0-9_-], untouched by normalisation). Two cases would break injectivity and get a `~`,
 * which base64url never produces: the empty string (an empty part would collapse `a::b` into
 * `a:b`) and a string with a lone surrogate (UTF-8 would turn it into U+FFFD, like the real
 * U+FFFD), encoded as its UTF-16 code units instead.
 */
export function encodeKeyPart(part: string | number): string {
  const text = String(part)
  if (text === '') return '~'
  if (LONE_SURROGATE.test(text)) return `~${Buffer.from(text, 'utf16le').toString('base64url')}`
  return Buffer.from(text, 'utf8').toString('base64url')
}

/**
 * A key part derived from a secret or from unbounded input (an API token, a limiter's caller key):
 * 32 characters of its SHA-256 digest in base64url. Nothing secret sits in storage in clear, and
 * the key's length stays bounded whatever the request sent.
 */
export function hashKeyPart(part: string): string {
  // one-shot hash(): a Hash object costs about three times as much (several limiter keys per request)
  return hash('sha256', part, 'base64url').slice(0, 32)
}

const NAMESPACE = /^[a-z][a-z0-9.-]*(?::[a-z][a-z0-9.-]*)*$/

/**
 * The one way to build a store key from outside values: `namespace:<part>:<part>...`, each part
 * encoded. The namespace is a code constant (`hmac:nonce`, `login-device`).
 */
export function storeKey(namespace: string, ...parts: Array<string | number>): string {
  if (!NAMESPACE.test(namespace)) throw new Error(`invalid store key namespace: ${namespace}`)
  return parts.length ? `${namespace}:${parts.map(encodeKeyPart).join(':')}` : namespace
}

/**
 * The keys unstorage keeps exactly as they are (`normalizeKey(key) === key`, no `.`/`..` segment):
 * non-empty segments free of `:`, `?`, `/`, `\`, joined by single colons. One regex test, no
 * allocation: it runs on every store operation (a unit test holds it to unstorage's own functions).
 */
const KEPT_KEY = /^(?!\.\.?(?::|$))[^:?/\\]+(?::(?!\.\.?(?::|$))[^:?/\\]+)*$/

/** True when unstorage would keep `key` exactly as it is. */
export function isKeptKey(key: string): boolean {
  return KEPT_KEY.test(key)
}

/** Throws unless unstorage would keep `key` exactly as it is (an unencoded part slipped through). */
export function assertStoreKey(key: string): string {
  if (!KEPT_KEY.test(key)) {
    throw new Error(`store key would be rewritten by unstorage (build it with storeKey): ${JSON.stringify(key.slice(0, 80))}`)
  }
  return key
}
