/**
 * What the IAM checks of a version 2 signature, for test servers that stand in for it (the fake
 * IAM, the IAM client's unit tests): the request as received, recomputed under `sharedSecret`.
 */
import type { IncomingHttpHeaders } from 'node:http'
import { computeSignatureV2, HMAC_HEADERS, SIGNED_HEADERS_V2, sha256Hex, signaturesMatch, type SignedHeaderValues } from '../../iam/client/hmac'

export interface ReceivedRequest {
  method: string
  /** the request target as received */
  url: string
  headers: IncomingHttpHeaders
  body: string | Buffer
}

export function verifiesV2(request: ReceivedRequest, hmac: { clientId: string; sharedSecret: string }): boolean {
  const header = (name: string) => {
    const value = request.headers[name]
    return Array.isArray(value) ? value.join(', ') : value
  }
  if (header(HMAC_HEADERS.version) !== '2' || header(HMAC_HEADERS.clientId) !== hmac.clientId) return false
  const covered: SignedHeaderValues = {}
  for (const name of SIGNED_HEADERS_V2) covered[name] = header(name)
  const expected = computeSignatureV2({
    ...hmac,
    method: request.method,
    url: request.url,
    timestampMs: Number(header(HMAC_HEADERS.timestamp)),
    requestId: String(header(HMAC_HEADERS.requestId)),
    bodySha256: sha256Hex(request.body),
    headers: covered,
  })
  return signaturesMatch(expected, String(header(HMAC_HEADERS.signature)))
}
