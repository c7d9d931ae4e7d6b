/**
 * HMAC verification of gateway requests (docs/architecture.md, "Trust boundaries"), active only when
 * service.Hmac is configured. Failure: 401 `{ reason }`.
 *
 * Three versions (iam/client/hmac.ts): the original (1), whose signature covers neither the body nor
 * the credential headers; 2 (`X-Signature-Version: 2`), which also covers the SHA-256 of the
 * body and the Cookie, Authorization, X-Forwarded-For and x-api-key headers; and 3, which also
 * names the purpose it was signed for. Version 1 is refused unless service.Hmac.requireBodyDigest
 * is false (a dev-profile opt-out, lib/config.ts).
 *
 * A valid signature then still has to name a purpose the route accepts (its table entry's
 * `purposes`, `provider` alone on /oidc/**, `scim` alone on /scim/v2/**), else 401 `Purpose not accepted`: versions 1 and 2 name
 * none and count as `bff` and `oauth-callback`, never as `provider`.
 *
 * Order of checks: headers present, client id, version, timestamp format, clock skew, request id
 * format, (version 2) the body, signature, and only then the nonce. The nonce is recorded after the
 * signature verified, so nobody without the secret can burn a gateway's request ids. It is kept in
 * the shared store for twice the skew window (a timestamp is accepted up to maxClockSkew either
 * side of now), so a replay is rejected by every IAM instance, not only the one that saw the
 * original.
 *
 * The body a version 2 signature covers is the one the IAM reads: the raw bytes of a JSON route or
 * an image route (PUT /auth/picture, under the configured cap), read here under the route's bound (middleware 30 gets the same bytes), or of a request to the
 * OpenID Provider (/oidc/**, under the provider's own bound); every other route reads no body,
 * so its digest is that of the empty body.
 */
import { defineEventHandler, type H3Event } from 'h3'
import {
  computeSignature,
  computeSignatureV2,
  computeSignatureV3,
  HMAC_HEADERS,
  isGatewayPurpose,
  type GatewayPurpose,
  SIGNED_HEADERS_V2,
  sha256Hex,
  signaturesMatch,
  type SignedHeaderValues,
} from '../client/hmac'
import { useIam, type IamContext } from '../context'
import { readPictureBody } from '../http/picture-body'
import { failTooLarge, readRawBody } from '../http/raw-body'
import { httpFail } from '../http/respond'
import { getClientIp, getRequestId, requestHeader } from '../http/request'
import { routePath } from '../contract/route-rules'
import { isOidcPath, OIDC_BODY_LIMIT_BYTES } from '../contract/oidc-mount'
import { isScimPath, SCIM_BODY_LIMIT_BYTES } from '../contract/scim-mount'
import { DEFAULT_PURPOSES } from '../contract/define'
import { storeKey } from '../lib/storage/keys'

export type HmacFailure =
  | 'Missing HMAC headers'
  | 'Unknown client'
  | 'Unsupported signature version'
  | 'Signature version 2 required'
  | 'Invalid timestamp'
  | 'Request expired'
  | 'Invalid request id'
  | 'Invalid signature'
  | 'Replayed request'
  | 'Unknown purpose'
  | 'Purpose not accepted'

/** What a version 2 signature covers besides the request line. */
export interface CoveredParts {
  /** hex SHA-256 of the body bytes the IAM reads (of the empty body when it reads none) */
  bodySha256: string
  headers: SignedHeaderValues
}

export interface HmacInput {
  method: string
  /** the request target as received: path + query */
  url: string
  headers: { clientId?: string; timestamp?: string; signature?: string; requestId?: string; version?: string; purpose?: string }
  /** requireBodyDigest: false accepts version 1 (an explicit opt-out; the config's default is true) */
  settings: { clientId: string; sharedSecret: string; maxClockSkew: number; requireBodyDigest: boolean }
  now: number
  /**
   * Version 2 only, called once the cheap header checks passed (so junk is refused before any
   * body is read). May throw an HTTP failure of its own (413).
   */
  covered?: () => Promise<CoveredParts>
  /** writes the nonce when absent; false = already seen (shared store setIfAbsent) */
  claimNonce: (key: string, ttlMs: number) => Promise<boolean>
}

const TIMESTAMP = /^[1-9][0-9]{0,15}$/
// Same shape as the request ids the IAM echoes: bounded, so nonce keys stay small.
const NONCE = /^[A-Za-z0-9._-]{1,128}$/

/** 1, 2 or 3 from the X-Signature-Version header (absent = 1, the original scheme's); null for anything else. */
export function signatureVersionOf(header: string | undefined): 1 | 2 | 3 | null {
  const value = header?.trim()
  if (value === undefined || value === '1') return 1
  return value === '2' ? 2 : value === '3' ? 3 : null
}

/**
 * What a signature that names no purpose (versions 1 and 2) is trusted for: a person's action and
 * an OAuth callback's identity, what the original version 1 scheme signed, and never forwarded provider traffic
 * (docs/architecture.md, "Trust boundaries").
 */
export const UNNAMED_PURPOSES: readonly GatewayPurpose[] = ['bff', 'oauth-callback']

/** The verification decision; pure apart from `covered` and `claimNonce`. On success, the purposes the signature stands for. */
export async function verifyHmacRequest(input: HmacInput): Promise<{ ok: true; purposes: readonly GatewayPurpose[] } | { ok: false; reason: HmacFailure }> {
  const { clientId, timestamp, signature, requestId } = input.headers
  if (!clientId || !timestamp || !signature || !requestId) return { ok: false, reason: 'Missing HMAC headers' }
  if (clientId !== input.settings.clientId) return { ok: false, reason: 'Unknown client' }
  const version = signatureVersionOf(input.headers.version)
  if (version === null) return { ok: false, reason: 'Unsupported signature version' }
  if (version === 1 && input.settings.requireBodyDigest) return { ok: false, reason: 'Signature version 2 required' }
  const purpose = input.headers.purpose
  if (version === 3 && !isGatewayPurpose(purpose)) return { ok: false, reason: 'Unknown purpose' }
  if (!TIMESTAMP.test(timestamp)) return { ok: false, reason: 'Invalid timestamp' }
  const timestampMs = Number(timestamp)
  if (Math.abs(input.now - timestampMs) > input.settings.maxClockSkew) return { ok: false, reason: 'Request expired' }
  if (!NONCE.test(requestId)) return { ok: false, reason: 'Invalid request id' }
  const signed = { clientId, sharedSecret: input.settings.sharedSecret, method: input.method, url: input.url, timestampMs, requestId }
  let expected: string
  if (version === 3) {
    if (!input.covered) throw new Error('verifyHmacRequest: a version 3 signature needs the covered parts')
    expected = computeSignatureV3({ ...signed, ...(await input.covered()), purpose: purpose as GatewayPurpose })
  } else if (version === 2) {
    if (!input.covered) throw new Error('verifyHmacRequest: a version 2 signature needs the covered parts')
    expected = computeSignatureV2({ ...signed, ...(await input.covered()) })
  } else {
    expected = computeSignature(signed)
  }
  if (!signaturesMatch(expected, signature.toLowerCase())) return { ok: false, reason: 'Invalid signature' }
  const fresh = await input.claimNonce(storeKey('hmac:nonce', clientId, requestId), 2 * input.settings.maxClockSkew)
  if (!fresh) return { ok: false, reason: 'Replayed request' }
  return { ok: true, purposes: version === 3 ? [purpose as GatewayPurpose] : UNNAMED_PURPOSES }
}

const LOOPBACK = new Set(['127.0.0.1', '::1'])

/**
 * Local GET /health is exempt (a probe on the same host signs nothing), judged on the resolved client IP; so is
 * every route whose table entry says `hmac: false` (GET /openapi.json, /health/ready, /metrics), from anywhere.
 */
function isExempt(event: H3Event): boolean {
  if (event.context.routeRule?.hmac === false) return true
  return event.method === 'GET' && routePath(event.path) === '/health' && LOOPBACK.has(getClientIp(event))
}

const EMPTY_BODY_SHA256 = sha256Hex('')
const PROVIDER_ONLY: readonly GatewayPurpose[] = ['provider']
const SCIM_ONLY: readonly GatewayPurpose[] = ['scim']

/** The bound of the body a route outside the table reads: the OpenID Provider's, the SCIM service's; none elsewhere. */
function mountBodyLimit(path: string): number | undefined {
  if (isOidcPath(path)) return OIDC_BODY_LIMIT_BYTES
  return isScimPath(path) ? SCIM_BODY_LIMIT_BYTES : undefined
}

/**
 * The body bytes the IAM will read for this route and the covered headers: a JSON route's body,
 * or the form body of the OpenID Provider (routes/oidc hands these bytes to it); none elsewhere.
 */
async function coveredParts(event: H3Event): Promise<CoveredParts> {
  const headers: SignedHeaderValues = {}
  for (const name of SIGNED_HEADERS_V2) headers[name] = requestHeader(event, name)
  const rule = event.context.routeRule
  if (rule?.body.kind === 'image') return { bodySha256: sha256Hex(await readPictureBody(event)), headers }
  const limitBytes = rule?.body.kind === 'json' ? rule.body.limitBytes : !rule ? mountBodyLimit(event.path) : undefined
  if (limitBytes === undefined) return { bodySha256: EMPTY_BODY_SHA256, headers }
  const raw = await readRawBody(event, limitBytes)
  if (raw === 'too-large') failTooLarge(event, rule?.body.kind === 'json' ? rule.body.tooLarge : undefined)
  return { bodySha256: sha256Hex(raw), headers }
}

/** The check of one signed request (settings configured, route not exempt). */
async function verifyRequest(event: H3Event, settings: NonNullable<IamContext['config']['service']['Hmac']>): Promise<void> {
  const { store, log, now } = useIam()
  const header = (name: string) => requestHeader(event, name)
  const result = await verifyHmacRequest({
    method: event.method,
    url: event.node.req.url ?? '/',
    headers: {
      clientId: header(HMAC_HEADERS.clientId),
      timestamp: header(HMAC_HEADERS.timestamp),
      signature: header(HMAC_HEADERS.signature),
      requestId: header(HMAC_HEADERS.requestId),
      version: header(HMAC_HEADERS.version),
      purpose: header(HMAC_HEADERS.purpose),
    },
    settings,
    now: now(),
    covered: () => coveredParts(event),
    claimNonce: (key, ttlMs) => store.setIfAbsent(key, 1, ttlMs),
  })
  if (!result.ok) {
    log.warn('hmac rejected', { requestId: getRequestId(event), reason: result.reason, ip: getClientIp(event) })
    httpFail(401, { reason: result.reason, code: 'hmac_invalid' })
  }
  const accepted = acceptedPurposes(event)
  if (!result.purposes.some((purpose) => accepted.includes(purpose))) {
    log.warn('hmac rejected', { requestId: getRequestId(event), reason: 'Purpose not accepted', purposes: result.purposes.join(' '), ip: getClientIp(event) })
    httpFail(401, { reason: 'Purpose not accepted' satisfies HmacFailure, code: 'purpose_not_accepted' })
  }
}

/**
 * The purposes a request here accepts: its route table entry's, the OpenID Provider's mount
 * `provider` only, the SCIM mount `scim` only (an identity provider's traffic passes through as
 * it came, so it must reach nothing else, and nothing else may reach the SCIM service), and `bff`
 * for a path outside the table (which then answers 404).
 */
function acceptedPurposes(event: H3Event): readonly GatewayPurpose[] {
  const rule = event.context.routeRule
  if (rule) return rule.purposes ?? DEFAULT_PURPOSES
  if (isScimPath(event.path)) return SCIM_ONLY
  return isOidcPath(event.path) ? PROVIDER_ONLY : DEFAULT_PURPOSES
}

// Not an async function: an exempt request, or any request without HMAC configured, returns at
// once instead of handing the app a promise to await (every request passes here).
export default defineEventHandler((event) => {
  const settings = useIam().config.service.Hmac
  if (!settings || isExempt(event)) return
  return verifyRequest(event, settings)
})
