/**
 * A client's secret at the token and introspection endpoints (RFC 6749 section 2.3.1), read the way
 * the fast paths (introspection.ts, client-credentials.ts, refresh-token.ts) accept it: only the forms whose
 * outcome is certain to be oidc-provider's. Anything else is undefined here, and the provider's
 * own client authentication (its shared/client_auth.js) answers the request, errors included.
 */
import { timingSafeEqual } from 'node:crypto'

/** One form-encoded part; most have nothing encoded, and those are returned as they are. */
export const formDecoded = (part: string): string => (/[%+]/.test(part) ? decodeURIComponent(part.replace(/\+/g, ' ')) : part)

/**
 * Basic credentials (RFC 7617) in the one form every client library writes: the scheme, one space,
 * base64 (RFC 4648 section 4) that decodes and encodes back to itself, padded or not. Node's
 * decoder skips what is not base64 and stops at the first `=`, where the provider refuses the
 * header (`invalid_request`): anything else is left to it.
 */
const BASIC = /^basic ([A-Za-z0-9+/]+)(={0,2})$/i

function basicCredentials(authorization: string): string | undefined {
  const match = BASIC.exec(authorization)
  if (!match) return undefined
  const data = match[1] ?? ''
  const padding = match[2] ?? ''
  const bytes = Buffer.from(data, 'base64')
  const canonical = bytes.toString('base64')
  const unpadded = canonical.replace(/=+$/, '')
  // padded: exactly the encoder's padding; unpadded: the encoder's output without it
  return unpadded === data && (padding === '' || canonical === data + padding) ? bytes.toString('utf8') : undefined
}

/** The media type the provider parses a body of (oidc-provider's selective_body.js); another spelling is left to it. */
export const FORM_CONTENT_TYPE = /^application\/x-www-form-urlencoded(?:; ?charset=utf-8)?$/i

/** The caller's client id and secret, from Basic (RFC 6749 section 2.3.1: form-encoded) or the body; undefined when neither or both. */
export function clientCredentials(params: URLSearchParams, authorization: string | undefined): { id: string; secret: string; method: 'client_secret_basic' | 'client_secret_post' } | undefined {
  const inBody = params.has('client_secret')
  if (authorization) {
    if (inBody) return undefined
    const decoded = basicCredentials(authorization)
    if (decoded === undefined) return undefined
    const colon = decoded.indexOf(':')
    if (colon < 1) return undefined
    try {
      const id = formDecoded(decoded.slice(0, colon))
      const secret = formDecoded(decoded.slice(colon + 1))
      if (params.has('client_id') && params.get('client_id') !== id) return undefined
      return { id, secret, method: 'client_secret_basic' }
    } catch {
      return undefined
    }
  }
  const id = params.get('client_id')
  const secret = params.get('client_secret')
  return inBody && id && secret ? { id, secret, method: 'client_secret_post' } : undefined
}

export function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

