/**
 * HMAC verification of gateway requests (IAM spec Authentication 9), active only when
 * service.Hmac is configured. Failure: 401 `{ reason }`.
 *
 * Order of checks: headers present, client id, timestamp format, clock skew, signature, and only
 * then the nonce. The nonce is recorded after the signature verified, so nobody without the secret
 * can burn a gateway's request ids. It is kept in the shared store for twice the skew window
 * (a timestamp is accepted up to maxClockSkew either side of now), so a replay is rejected by
 * every IAM instance, not only the one that saw the original.
 */
import { defineEventHandler, getRequestHeader, type H3Event } from 'h3'
import { computeSignature, HMAC_HEADERS, signaturesMatch } from '../client/hmac'
import { useIam } from '../context'
import { httpFail } from '../http/respond'
import { getClientIp, getRequestId } from '../http/request'
import { routePath } from '../lib/route-rules'

export type HmacFailure =
  | 'Missing HMAC headers'
  | 'Unknown client'
  | 'Invalid timestamp'
  | 'Request expired'
  | 'Invalid request id'
  | 'Invalid signature'
  | 'Replayed request'

export interface HmacInput {
  method: string
  /** the request target as received: path + query */
  url: string
  headers: { clientId?: string; timestamp?: string; signature?: string; requestId?: string }
  settings: { clientId: string; sharedSecret: string; maxClockSkew: number }
  now: number
  /** writes the nonce when absent; false = already seen (shared store setIfAbsent) */
  claimNonce: (key: string, ttlMs: number) => Promise<boolean>
}

const TIMESTAMP = /^[1-9][0-9]{0,15}$/
// Same shape as the request ids the IAM echoes: bounded, so nonce keys stay small.
const NONCE = /^[A-Za-z0-9._-]{1,128}$/

/** The verification decision; pure apart from `claimNonce`. */
export async function verifyHmacRequest(input: HmacInput): Promise<{ ok: true } | { ok: false; reason: HmacFailure }> {
  const { clientId, timestamp, signature, requestId } = input.headers
  if (!clientId || !timestamp || !signature || !requestId) return { ok: false, reason: 'Missing HMAC headers' }
  if (clientId !== input.settings.clientId) return { ok: false, reason: 'Unknown client' }
  if (!TIMESTAMP.test(timestamp)) return { ok: false, reason: 'Invalid timestamp' }
  const timestampMs = Number(timestamp)
  if (Math.abs(input.now - timestampMs) > input.settings.maxClockSkew) return { ok: false, reason: 'Request expired' }
  if (!NONCE.test(requestId)) return { ok: false, reason: 'Invalid request id' }
  const expected = computeSignature({
    clientId,
    sharedSecret: input.settings.sharedSecret,
    method: input.method,
    url: input.url,
    timestampMs,
    requestId,
  })
  if (!signaturesMatch(expected, signature.toLowerCase())) return { ok: false, reason: 'Invalid signature' }
  const fresh = await input.claimNonce(`hmac:nonce:${clientId}:${requestId}`, 2 * input.settings.maxClockSkew)
  return fresh ? { ok: true } : { ok: false, reason: 'Replayed request' }
}

const LOOPBACK = new Set(['127.0.0.1', '::1'])

/** Local GET /health is exempt (spec Standalone endpoints), judged on the resolved client IP. */
function isExempt(event: H3Event): boolean {
  return event.method === 'GET' && routePath(event.path) === '/health' && LOOPBACK.has(getClientIp(event))
}

export default defineEventHandler(async (event) => {
  const { config, store, log, now } = useIam()
  const settings = config.service.Hmac
  if (!settings || isExempt(event)) return
  const header = (name: string) => getRequestHeader(event, name)
  const result = await verifyHmacRequest({
    method: event.method,
    url: event.node.req.url ?? '/',
    headers: {
      clientId: header(HMAC_HEADERS.clientId),
      timestamp: header(HMAC_HEADERS.timestamp),
      signature: header(HMAC_HEADERS.signature),
      requestId: header(HMAC_HEADERS.requestId),
    },
    settings,
    now: now(),
    claimNonce: (key, ttlMs) => store.setIfAbsent(key, 1, ttlMs),
  })
  if (!result.ok) {
    log.warn('hmac rejected', { requestId: getRequestId(event), reason: result.reason, ip: getClientIp(event) })
    httpFail(401, { reason: result.reason })
  }
})
