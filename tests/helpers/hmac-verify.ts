/**
 * What the IAM checks of a version 3 signature (the one the IAM client sends), for test servers that stand in for it (the fake
 * IAM, the IAM client's unit tests): the request as received, recomputed under `sharedSecret`.
 */
import type { IncomingHttpHeaders } from 'node:http'
import { computeSignatureV3, HMAC_HEADERS, isGatewayPurpose, SIGNED_HEADERS_V2, sha256Hex, signaturesMatch, type SignedHeaderValues } from '../../iam/client/hmac'

export interface ReceivedRequest {
  method: string
  /** the request target as received */
  url: string
  headers: IncomingHttpHeaders
  body: string | Buffer
}

export function verifiesSigned(request: ReceivedRequest, hmac: { clientId: string; sharedSecret: string }): boolean {
  const header = (name: string) => {
    const value = request.headers[name]
    return Array.isArray(value) ? value.join(', ') : value
  }
  const purpose = header(HMAC_HEADERS.purpose)
  if (header(HMAC_HEADERS.version) !== '3' || header(HMAC_HEADERS.clientId) !== hmac.clientId || !isGatewayPurpose(purpose)) return false
  const covered: SignedHeaderValues = {}
  for (const name of SIGNED_HEADERS_V2) covered[name] = header(name)
  const expected = computeSignatureV3({
    ...hmac,
    purpose,
    method: request.method,
    url: request.url,
    timestampMs: Number(header(HMAC_HEADERS.timestamp)),
    requestId: String(header(HMAC_HEADERS.requestId)),
    bodySha256: sha256Hex(request.body),
    headers: covered,
  })
  return signaturesMatch(expected, String(header(HMAC_HEADERS.signature)))
}
