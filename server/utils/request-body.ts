/**
 * Request bodies are bounded before they are buffered (as the IAM's middleware/30.request-rules.ts
 * does): server/middleware/15.body-limit.ts buffers every body through `bufferBody` before any
 * other middleware or route runs, and h3's readers (readBody, readRawBody, readFormData,
 * readMultipartFormData) then answer from that buffer and never read the socket again.
 */
import type { IncomingMessage } from 'node:http'
import { setResponseHeader, setResponseHeaders, setResponseStatus, type H3Event } from 'h3'
import { OIDC_BODY_LIMIT_BYTES } from '../../iam/contract/oidc-mount'
import { PICTURE_MAX_BYTES_CEILING } from '../../iam/contract/profile-picture'
import { isScimPath, SCIM_BODY_LIMIT_BYTES } from '../../iam/contract/scim-mount'
import { readBodyWithin } from '../../shared/read-bounded'
import type { BffErrorCode } from './bff/error-codes'
import { UPSTREAM_DEFAULT_BODY_LIMIT_BYTES, useGatewayConfig } from './gateway-config'
import { answerStatus } from './oauth/respond'

/**
 * BFF JSON and form bodies. The IAM accepts at most 1 kB on most routes and 4 kB on its largest
 * (iam/contract/define.ts), and the BFF forwards its bodies' fields there; the largest BFF body is a new
 * API token with 50 IPv4 restrictions (about 3.5 kB). 8 kB leaves room for form encoding (`%XX`
 * triples a byte) and refuses anything bigger before it costs memory.
 */
export const BFF_BODY_LIMIT_BYTES = 8 * 1024

/** form_post authorization responses (POST /oauth/callback/:provider) carry an ID token: a few kB, more with many claims. */
export const CALLBACK_BODY_LIMIT_BYTES = 64 * 1024

const PAYLOAD_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])

/** Where h3 1.x keeps a read body on the Node request; readRawBody answers from it when present. */
const H3_RAW_BODY = Symbol.for('h3RawBody')

/**
 * An identity provider's SAMLResponse posted to /sso/saml/:connectionId/acs: a signed XML document
 * in base64, then form-encoded (`+`, `/`, `=` become `%XX`); the IAM takes at most 192 kB of the
 * base64 (iam/contract/enterprise.ts).
 */
export const SAML_ACS_BODY_LIMIT_BYTES = 256 * 1024

/**
 * An organization's SAML connection (POST /api/orgs/:orgId/sso) may carry the identity provider's
 * metadata XML: Entra ID's federation metadata with its certificates runs to about 10 kB, and
 * the IAM takes up to 96 kB there (iam/contract/enterprise.ts).
 */
export const SSO_SETTINGS_BODY_LIMIT_BYTES = 128 * 1024

export const isSsoSettingsPath = (path: string): boolean => /^\/api\/orgs\/[^/?#]+\/sso(?:\?|$)/.test(path)

/** true for the SAML assertion consumer service path. */
export const isSamlAcsPath = (path: string): boolean => /^\/sso\/saml\/[^/?#]+\/acs(?:\?|$)/.test(path)

/** true for the OAuth form_post callback path. */
export function isCallbackPath(path: string): boolean {
  return path.startsWith('/oauth/callback/')
}


const UPSTREAM_PATH = /^\/api\/upstream\/([^/?#]*)/

/**
 * The API proxy's bound (/api/upstream/<name>/...): that API's `maxBodyBytes`, 1 MiB by default;
 * an unknown name gets the default (the route answers 404 after).
 */
function upstreamBodyLimit(path: string): number | undefined {
  const name = UPSTREAM_PATH.exec(path)?.[1]
  if (name === undefined) return undefined
  return useGatewayConfig().apis.find((api) => api.name === name)?.maxBodyBytes ?? UPSTREAM_DEFAULT_BODY_LIMIT_BYTES
}

/**
 * PUT /api/auth/picture carries the image itself: read up to the largest cap an IAM may be
 * configured with (iam/contract/profile-picture.ts); the IAM refuses what passes its own cap.
 */
export const isPicturePath = (path: string): boolean => /^\/api\/auth\/picture(?:\?|$)/.test(path)

/** The body limit of a request path. */
export function bodyLimitFor(path: string): number {
  if (isPicturePath(path)) return PICTURE_MAX_BYTES_CEILING
  if (isCallbackPath(path)) return CALLBACK_BODY_LIMIT_BYTES
  if (isSamlAcsPath(path)) return SAML_ACS_BODY_LIMIT_BYTES
  if (isSsoSettingsPath(path)) return SSO_SETTINGS_BODY_LIMIT_BYTES
  const upstream = upstreamBodyLimit(path)
  if (upstream !== undefined) return upstream
  if (isScimPath(path)) return SCIM_BODY_LIMIT_BYTES
  return path.startsWith('/oidc/') ? OIDC_BODY_LIMIT_BYTES : BFF_BODY_LIMIT_BYTES
}

/**
 * Buffers the request body, at most `limitBytes`, where h3's readers find it: 'fits', or 'too-large'
 * (a declared Content-Length is refused before reading, a chunked body when the count passes the
 * limit). The rest of a refused body is dropped as it arrives, within a bound, so the client can
 * read the 413 ('close' when it is too large to drop: shared/read-bounded.ts dropRest). A refused
 * body reads as empty afterwards, so nothing later waits on the socket or buffers it.
 */
export async function bufferBody(event: H3Event, limitBytes: number): Promise<'fits' | 'too-large' | 'close'> {
  if (!PAYLOAD_METHODS.has(event.method)) return 'fits'
  const req = event.node.req as IncomingMessage & { [H3_RAW_BODY]?: Promise<Buffer> }
  if (req[H3_RAW_BODY]) return 'fits'
  const body = await readBodyWithin(req, event.node.res, limitBytes)
  if (typeof body !== 'string') {
    req[H3_RAW_BODY] = Promise.resolve(body)
    return 'fits'
  }
  req[H3_RAW_BODY] = Promise.resolve(Buffer.alloc(0))
  return body
}

/**
 * Buffers the request's body within its path's limit; undefined when it fits. An oversized body is
 * 413: JSON `{ ok: false, error, code }` like the BFF's other refusals, or `{ error: 'payload_too_large' }`
 * like the OAuth callback's other status answers, returned for the caller to send, with the status and
 * headers set. The connection stays open for the next request unless the body is too large to
 * drop (`bufferBody`). Run by server/middleware/15.body-limit.ts, and by the gateway's direct lane
 * (server/utils/direct-lane.ts) for the requests it answers.
 */
export async function bodyRefusal(event: H3Event): Promise<object | undefined> {
  const buffered = await bufferBody(event, bodyLimitFor(event.path))
  if (buffered === 'fits') return undefined
  if (buffered === 'close') setResponseHeader(event, 'connection', 'close')
  if (isCallbackPath(event.path)) return answerStatus(event, 413, 'payload_too_large')
  setResponseStatus(event, 413)
  setResponseHeaders(event, { 'content-type': 'application/json', 'cache-control': 'no-store' })
  return { ok: false, error: 'Payload too large', code: 'payload_too_large' satisfies BffErrorCode }
}
