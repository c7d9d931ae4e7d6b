/**
 * Body and cookie-only rules per route (JSON object bodies of at most 1 KiB unless the route says
 * otherwise, cookie-only routes; the table is contract/route-rules.ts). Routes not in the table pass untouched (the router answers 404).
 *
 * Credentials come first (the rule's `auth`): every authentication chain starts with
 * requireAccessToken / requireRefreshToken (http/auth.ts), so a request without a Bearer token or session cookie is 401 with their
 * bodies (`Missing Bearer token`, `Access token missing`, `Refresh token missing`) before any body
 * rule answers 403/413/400. Only presence is checked here; the route runs the whole chain.
 *
 * JSON routes, in this order: Content-Type application/json (charset utf-8 or none) else 403
 * `not allowed.`; a declared Content-Length over the limit is refused before reading (413); the
 * body is read up to limit + 1 bytes, never more (a chunked body has no declared length: the
 * count decides, 413); empty => 403; not UTF-8 or not JSON => 400; not an object => 400; a string
 * (value or key) with NUL, a control character or a lone surrogate => 400 (lib/text.ts).
 * A version 2 HMAC request had its body read (under the same bound) by middleware 20, whose
 * signature covers it: its 413 comes from there, before these rules.
 *
 * Image routes (PUT /auth/picture): the raw body, not compressed (415), within the configured cap
 * (413 `picture_too_large`); the route refuses an empty one and judges the type (http/picture-body.ts).
 *
 * Cookie-only routes (acceptCookieOnly: the refresh cookie is the only credential they take): a
 * missing `session` cookie is 401 `Refresh token missing` first, as in the refresh chain
 * (requireRefreshToken runs before acceptCookieOnly, http/auth.ts); then 400 for a body (Content-Length > 0 or any Transfer-Encoding),
 * a query string, a Content-Type header, in that order.
 */
import { defineEventHandler, type H3Event } from 'h3'
import { authFail, requireAccessToken, requireRefreshToken } from '../http/auth'
import { applyImageRule } from '../http/picture-body'
import { failTooLarge, readRawBody } from '../http/raw-body'
import { requestHeader } from '../http/request'
import { failEnvelope, httpFail } from '../http/respond'
import type { AuthRule, JsonTextRule } from '../contract/route-rules'
import type { FieldIssue } from '../contract/field-issues'
import { isSafeText, UNSAFE_TEXT_MESSAGE } from '../contract/text'
import { findRejectedText, isStorableText } from '../lib/text'

function isJsonContentType(value: string | undefined): boolean {
  if (!value) return false
  const [type, ...params] = value.split(';').map((part) => part.trim().toLowerCase())
  if (type !== 'application/json') return false
  return params.every((param) => !param.startsWith('charset=') || /^charset="?utf-?8"?$/.test(param))
}

// fatal: invalid UTF-8 is malformed input, not U+FFFD; a leading BOM is dropped (RFC 8259 section 8.1).
const decoder = new TextDecoder('utf-8', { fatal: true })

/** `__proto__` keys are dropped: a parsed body must never carry a prototype for a later merge. */
const reviver = (key: string, value: unknown) => (key === '__proto__' ? undefined : value)

/**
 * NUL and lone surrogates anywhere in the body would fail in the database (500) and control
 * characters have no place in our fields: 400 in the route's own failure shape, before it runs.
 */
function rejectUnsafeText(value: unknown, rule: JsonTextRule): void {
  const field = findRejectedText(value, rule.text === 'storable' ? isStorableText : isSafeText)
  if (field === undefined) return
  if (rule.invalid === 'reason') httpFail(400, failEnvelope('Bad Request', 'bad_request'))
  const key = field || 'body'
  authFail(400, 'validation_failed', 'Validation failed', { fields: { [key]: UNSAFE_TEXT_MESSAGE }, fieldIssues: { [key]: { code: 'invalid' } satisfies FieldIssue } })
}

async function applyJsonRule(event: H3Event, rule: { limitBytes: number; tooLarge?: string } & JsonTextRule): Promise<void> {
  const { limitBytes } = rule
  if (!isJsonContentType(requestHeader(event, 'content-type'))) httpFail(403, { error: 'not allowed.', code: 'content_type_not_json' })
  const encoding = requestHeader(event, 'content-encoding')
  // A compressed body's size says nothing about what it inflates to: not accepted.
  if (encoding && encoding.toLowerCase() !== 'identity') httpFail(415, { error: 'Content-Encoding not supported', code: 'content_encoding_unsupported' })
  // Already read by middleware 20 when a version 2 signature covers it: the same bytes, not read again.
  const raw = await readRawBody(event, limitBytes)
  if (raw === 'too-large') failTooLarge(event, rule.tooLarge)
  if (raw.length === 0) httpFail(403, { error: 'Empty body', code: 'empty_body' })
  let text: string
  try {
    text = decoder.decode(raw)
  } catch {
    httpFail(400, { error: 'Malformed JSON', code: 'malformed_json' })
  }
  if (text.trim() === '') httpFail(403, { error: 'Empty body', code: 'empty_body' })
  let value: unknown
  try {
    value = JSON.parse(text, reviver)
  } catch {
    httpFail(400, { error: 'Malformed JSON', code: 'malformed_json' })
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    httpFail(400, { error: 'JSON body must be an object', code: 'body_not_object' })
  }
  rejectUnsafeText(value, rule)
  event.context.jsonBody = { value }
}

/** The presence checks of the route's chain, in the chain's order (requireAccessToken, then requireRefreshToken: http/auth.ts). */
function requireCredentials(event: H3Event, auth: AuthRule): void {
  if (auth === 'full' || auth === 'bearer+session') requireAccessToken(event)
  if (auth !== 'none') requireRefreshToken(event)
}

function applyCookieOnlyRule(event: H3Event): void {
  // acceptCookieOnly requires the session cookie itself: it is the route's only credential
  requireRefreshToken(event)
  const length = requestHeader(event, 'content-length')
  const hasBody =
    requestHeader(event, 'transfer-encoding') !== undefined || (length !== undefined && length.trim() !== '0')
  if (hasBody) httpFail(400, { error: 'Request body not allowed', code: 'cookie_only' })
  if ((event.node.req.url ?? '').includes('?')) httpFail(400, { error: 'Query string not allowed', code: 'cookie_only' })
  if (requestHeader(event, 'content-type') !== undefined) httpFail(400, { error: 'Content-Type not allowed', code: 'cookie_only' })
}

// Not an async function: only a JSON body is read asynchronously; every other request returns
// at once instead of handing the app a promise to await.
export default defineEventHandler((event) => {
  const rule = event.context.routeRule // looked up by middleware 10
  if (!rule) return
  requireCredentials(event, rule.auth ?? 'none')
  if (rule.body.kind === 'json') return applyJsonRule(event, rule.body)
  if (rule.body.kind === 'image') return applyImageRule(event)
  if (rule.body.kind === 'cookie-only') applyCookieOnlyRule(event)
})
