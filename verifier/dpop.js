/**
 * DPoP proofs at a resource server (RFC 9449 section 7.1, with the checks of section 4.3): a token
 * bound to a key (`cnf.jkt`, section 6) is only accepted together with a fresh proof, signed by
 * that key, for this very request and this very token. jose does the JWS and JWK work (the
 * embedded public key, the signature, the thumbprint of RFC 7638); the digest of the token is
 * WebCrypto's.
 *
 * What is checked, in the order of section 4.3: exactly one proof; a JWT of `typ: dpop+jwt` with
 * an asymmetric algorithm from the allow-list and a public `jwk` in its header (EmbeddedJWK refuses
 * a private one); its signature by that key; `htm` the request's method; `htu` the request's URL
 * without query and fragment; `iat` within the window either way; `jti` not seen before within
 * that window; `ath` the hash of the access token (section 4.2); and the key's thumbprint equal to
 * the token's `cnf.jkt`. Server-provided nonces (section 9) are not used: the `iat` window and the
 * `jti` memory bound a replay instead.
 */
import { base64url, calculateJwkThumbprint, EmbeddedJWK, jwtVerify } from 'jose'

export const DEFAULT_DPOP_ALGORITHMS = ['ES256', 'EdDSA', 'Ed25519', 'PS256', 'RS256']
export const DEFAULT_DPOP_WINDOW_SECONDS = 60
/** jti values kept at most (each for the window); past it, proofs are refused until some expire */
const MAX_REMEMBERED_JTIS = 100_000

/**
 * A per-process memory of proof ids: `unique(jti, expiresAtSeconds)` is true the first time a jti
 * is shown, false after, until it expires. A deployment with several instances passes its own
 * shared one (a Redis SET NX EX does it in one atomic step).
 * @param {() => number} nowSeconds
 */
export function memoryJtiStore(nowSeconds = () => Math.floor(Date.now() / 1000)) {
  /** jti -> expiry (s) */
  const seen = new Map()
  return {
    unique(jti, expiresAt) {
      const now = nowSeconds()
      if (seen.size >= MAX_REMEMBERED_JTIS) {
        for (const [key, until] of seen) if (until <= now) seen.delete(key)
      }
      const until = seen.get(jti)
      if (until !== undefined && until > now) return false
      // full of live ids: refuse rather than forget one, which would let its proof be replayed
      if (seen.size >= MAX_REMEMBERED_JTIS) return false
      seen.set(jti, expiresAt)
      return true
    },
  }
}

/** base64url(SHA-256(token)): the proof's `ath` (RFC 9449 section 4.2). */
export async function accessTokenHash(token) {
  return base64url.encode(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(token))))
}

/** The URL a proof's `htu` is compared with: scheme, host, port and path; no query, no fragment. */
function withoutQuery(value) {
  const url = URL.parse(String(value))
  if (!url) return null
  url.search = ''
  url.hash = ''
  return url.href
}

/**
 * Checks the DPoP proof of one request for a token bound to `jkt`.
 * @param {{ proof: string | string[] | undefined, method: string, url: string }} request the request's DPoP header value(s), method and full URL as the client addressed it
 * @param {{ accessToken: string, jkt: string }} token
 * @param {{ algorithms: string[], windowSeconds: number, clockToleranceSeconds: number, jtis: { unique(jti: string, expiresAt: number): boolean | Promise<boolean> }, nowSeconds: () => number }} settings
 * @returns {Promise<{ ok: true } | { ok: false, message: string }>}
 */
export async function checkDpopProof(request, token, settings) {
  const proofs = Array.isArray(request.proof) ? request.proof : request.proof === undefined ? [] : [request.proof]
  if (proofs.length !== 1 || typeof proofs[0] !== 'string' || proofs[0].includes(',')) {
    return { ok: false, message: proofs.length ? 'Send exactly one DPoP proof' : 'A DPoP proof is required with this access token' }
  }
  let payload
  let header
  try {
    ;({ payload, protectedHeader: header } = await jwtVerify(proofs[0], EmbeddedJWK, { typ: 'dpop+jwt', algorithms: settings.algorithms }))
  } catch {
    return { ok: false, message: 'The DPoP proof is not a valid dpop+jwt signed by its embedded public key with an accepted algorithm' }
  }
  if (typeof payload.jti !== 'string' || !payload.jti || payload.jti.length > 256) return { ok: false, message: 'The DPoP proof has no jti' }
  if (payload.htm !== request.method) return { ok: false, message: 'The DPoP proof is for another HTTP method' }
  const expected = withoutQuery(request.url)
  if (!expected || typeof payload.htu !== 'string' || withoutQuery(payload.htu) !== expected) return { ok: false, message: 'The DPoP proof is for another URL' }
  const now = settings.nowSeconds()
  if (typeof payload.iat !== 'number' || Math.abs(now - payload.iat) > settings.windowSeconds + settings.clockToleranceSeconds) {
    return { ok: false, message: 'The DPoP proof is not recent' }
  }
  if (payload.ath !== (await accessTokenHash(token.accessToken))) return { ok: false, message: 'The DPoP proof is for another access token' }
  if ((await calculateJwkThumbprint(header.jwk, 'sha256')) !== token.jkt) return { ok: false, message: 'The DPoP proof is signed by another key than the one the token is bound to' }
  // last, so that a proof refused for another reason does not use up its jti; kept until its
  // iat leaves the window, after which the iat check refuses it anyway
  const fresh = await settings.jtis.unique(payload.jti, payload.iat + settings.windowSeconds + settings.clockToleranceSeconds + 1)
  if (!fresh) return { ok: false, message: 'The DPoP proof was already used' }
  return { ok: true }
}
