/**
 * HMAC request signing between the gateway and the IAM (IAM spec, Authentication item 9).
 *
 * String to sign: `${clientId}:${timestamp}:${METHOD}:${url}:${requestId}` where `url` is the
 * request target as the IAM receives it (path + query, e.g. `/auth/OAuth/demo?x=1`), so the
 * signature does not depend on host names or proxies in between. Signature: lowercase hex
 * HMAC-SHA256 under the shared secret. The request id is a one-time nonce.
 *
 * Plain node:crypto only: imported by the gateway (signing) and the IAM (verifying).
 */
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto'

export const HMAC_HEADERS = {
  clientId: 'x-client-id',
  timestamp: 'x-timestamp',
  signature: 'x-signature',
  requestId: 'x-request-id',
} as const

export interface SignInput {
  clientId: string
  sharedSecret: string
  method: string
  /** path + query as sent */
  url: string
  timestampMs: number
  requestId: string
}

export function stringToSign(input: Omit<SignInput, 'sharedSecret'>): string {
  return `${input.clientId}:${input.timestampMs}:${input.method.toUpperCase()}:${input.url}:${input.requestId}`
}

export function computeSignature(input: SignInput): string {
  return createHmac('sha256', input.sharedSecret).update(stringToSign(input)).digest('hex')
}

/** Constant-time comparison of two hex signatures (false on any length or format mismatch). */
export function signaturesMatch(expectedHex: string, givenHex: string): boolean {
  if (!/^[0-9a-f]{64}$/.test(givenHex)) return false
  return timingSafeEqual(Buffer.from(expectedHex, 'hex'), Buffer.from(givenHex, 'hex'))
}

/** The four headers for one request. */
export function signRequest(opts: {
  clientId: string
  sharedSecret: string
  method: string
  url: string
  now?: number
  requestId?: string
}): Record<string, string> {
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
