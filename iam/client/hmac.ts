/**
 * HMAC request signing between the gateway and the IAM (docs/architecture.md, "Trust boundaries").
 *
 * Version 1 (the original scheme, refused unless service.Hmac.requireBodyDigest is false): string to sign `${clientId}:${timestamp}:${METHOD}:${url}:${requestId}`
 * where `url` is the request target as the IAM receives it (path + query, e.g.
 * `/auth/OAuth/demo?x=1`), so the signature does not depend on host names or proxies in between.
 * It covers neither the body nor the headers that carry credentials: whoever sees one signed
 * request (a log, a proxy, a TLS-less hop) can send its headers again with another body or another
 * session cookie until the nonce is spent.
 *
 * Version 2 (announced by `X-Signature-Version: 2`; the IAM client always sends it): the same
 * fields, one per line after the tag `v2`, then the SHA-256 of the exact body bytes and of each
 * header in SIGNED_HEADERS_V2. Every variable part is either hex or a bounded token without a
 * newline (the request target cannot contain one), so the concatenation is unambiguous. An absent
 * header signs like an empty one: both mean "no credential".
 *
 * Version 3 (`X-Signature-Version: 3`; what the IAM client sends): version 2 with the caller's
 * purpose (`X-Signature-Purpose`) on its own line after the request id. A signature proves which
 * process sent a request, not what it may reach: the purpose says why it was sent, and each IAM
 * route accepts only the purposes its table entry names (docs/architecture.md, "Trust
 * boundaries"). A request signed to forward provider traffic cannot be replayed, or misrouted by a
 * bug, into a route that signs people in.
 *
 * Signature: lowercase hex HMAC-SHA256 under the shared secret. The request id is a one-time nonce.
 * Plain node:crypto only: imported by the gateway (signing) and the IAM (verifying).
 */
import { createHash, createHmac, randomUUID, timingSafeEqual } from 'node:crypto'

export const HMAC_HEADERS = {
  clientId: 'x-client-id',
  timestamp: 'x-timestamp',
  signature: 'x-signature',
  requestId: 'x-request-id',
  version: 'x-signature-version',
  purpose: 'x-signature-purpose',
} as const

/**
 * Why the gateway signed a request: `bff` a person's action through the BFF allow-list, `provider`
 * OpenID Provider traffic forwarded as it came, `oauth-callback` an identity the gateway's own code
 * exchange verified (the profile is the signed body), `sso` the SAML service provider's public
 * endpoints the gateway forwards (/sso/saml/{connectionId}/..., features/enterprise): metadata,
 * the start of a sign-in and the identity provider's response, which the IAM itself verifies;
 * `scim` an identity provider's SCIM traffic forwarded as it came (server/utils/scim-forward.ts;
 * only the /scim/v2 mount accepts it).
 */
export const GATEWAY_PURPOSES = ['bff', 'provider', 'oauth-callback', 'sso', 'scim'] as const
export type GatewayPurpose = (typeof GATEWAY_PURPOSES)[number]

export const isGatewayPurpose = (value: string | undefined): value is GatewayPurpose => (GATEWAY_PURPOSES as readonly string[]).includes(value ?? '')

/** The headers a version 2 signature covers: the credentials and the client address the IAM trusts. */
export const SIGNED_HEADERS_V2 = ['cookie', 'authorization', 'x-forwarded-for', 'x-api-key'] as const
export type SignedHeaderV2 = (typeof SIGNED_HEADERS_V2)[number]
export type SignedHeaderValues = Partial<Record<SignedHeaderV2, string>>

export interface SignInput {
  clientId: string
  sharedSecret: string
  method: string
  /** path + query as sent */
  url: string
  timestampMs: number
  requestId: string
}

export interface SignInputV2 extends SignInput {
  /** hex SHA-256 of the body bytes as sent (of the empty string when there is none) */
  bodySha256: string
  headers: SignedHeaderValues
}

export interface SignInputV3 extends SignInputV2 {
  purpose: GatewayPurpose
}

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex')
}

export function stringToSign(input: Omit<SignInput, 'sharedSecret'>): string {
  return `${input.clientId}:${input.timestampMs}:${input.method.toUpperCase()}:${input.url}:${input.requestId}`
}

/**
 * Version 2's lines with `tag` first and `purpose` (version 3) after the request id: one list, so
 * the two versions cannot drift apart.
 */
function linesToSign(tag: 'v2' | 'v3', input: Omit<SignInputV2, 'sharedSecret'>, purpose?: GatewayPurpose): string {
  return [
    tag,
    input.clientId,
    String(input.timestampMs),
    input.method.toUpperCase(),
    input.url,
    input.requestId,
    ...(purpose === undefined ? [] : [purpose]),
    input.bodySha256,
    ...SIGNED_HEADERS_V2.map((name) => sha256Hex(input.headers[name] ?? '')),
  ].join('\n')
}

export const stringToSignV2 = (input: Omit<SignInputV2, 'sharedSecret'>): string => linesToSign('v2', input)

export const stringToSignV3 = (input: Omit<SignInputV3, 'sharedSecret'>): string => linesToSign('v3', input, input.purpose)

export function computeSignature(input: SignInput): string {
  return createHmac('sha256', input.sharedSecret).update(stringToSign(input)).digest('hex')
}

export function computeSignatureV2(input: SignInputV2): string {
  return createHmac('sha256', input.sharedSecret).update(stringToSignV2(input)).digest('hex')
}

export function computeSignatureV3(input: SignInputV3): string {
  return createHmac('sha256', input.sharedSecret).update(stringToSignV3(input)).digest('hex')
}

/** Constant-time comparison of two hex signatures (false on any length or format mismatch). */
export function signaturesMatch(expectedHex: string, givenHex: string): boolean {
  if (!/^[0-9a-f]{64}$/.test(givenHex)) return false
  return timingSafeEqual(Buffer.from(expectedHex, 'hex'), Buffer.from(givenHex, 'hex'))
}

interface SignOptions {
  clientId: string
  sharedSecret: string
  method: string
  url: string
  now?: number
  requestId?: string
}

/** The four version 1 headers for one request (the original scheme). */
export function signRequest(opts: SignOptions): Record<string, string> {
  const timestampMs = opts.now ?? Date.now()
  const requestId = opts.requestId ?? randomUUID()
  const signature = computeSignature({ ...opts, timestampMs, requestId })
  return {
    [HMAC_HEADERS.clientId]: opts.clientId,
    [HMAC_HEADERS.timestamp]: String(timestampMs),
    [HMAC_HEADERS.signature]: signature,
    [HMAC_HEADERS.requestId]: requestId,
  }
}

type BodySignOptions = SignOptions & { body?: string | Uint8Array; headers?: SignedHeaderValues }

/** The headers of a version 2 (no purpose) or 3 signature over this body and these header values. */
function signWithBody(opts: BodySignOptions, purpose?: GatewayPurpose): Record<string, string> {
  const timestampMs = opts.now ?? Date.now()
  const requestId = opts.requestId ?? randomUUID()
  const input = { ...opts, timestampMs, requestId, bodySha256: sha256Hex(opts.body ?? ''), headers: opts.headers ?? {} }
  return {
    [HMAC_HEADERS.clientId]: opts.clientId,
    [HMAC_HEADERS.timestamp]: String(timestampMs),
    [HMAC_HEADERS.signature]: purpose === undefined ? computeSignatureV2(input) : computeSignatureV3({ ...input, purpose }),
    [HMAC_HEADERS.requestId]: requestId,
    [HMAC_HEADERS.version]: purpose === undefined ? '2' : '3',
    ...(purpose === undefined ? {} : { [HMAC_HEADERS.purpose]: purpose }),
  }
}

/** The five version 2 headers for one request with this body and these header values. */
export const signRequestV2 = (opts: BodySignOptions): Record<string, string> => signWithBody(opts)

/** The six version 3 headers for one request sent for `purpose` with this body and these header values. */
export const signRequestV3 = (opts: BodySignOptions & { purpose: GatewayPurpose }): Record<string, string> => signWithBody(opts, opts.purpose)
