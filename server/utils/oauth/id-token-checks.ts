/**
 * ID token checks that oauth4webapi leaves to the caller (explicit here).
 * oauth4webapi already validated iss, aud, exp, iat and nonce, and the signature is verified
 * separately against the provider's JWKS; these two run on the validated claims.
 */
import { createHash } from 'node:crypto'
import { decodeProtectedHeader } from 'jose'

/** OIDC Core 2: `azp`, when present, must be our client_id (stricter than the multi-audience rule). */
export function azpMatches(claims: Readonly<Record<string, unknown>>, clientId: string): boolean {
  return claims['azp'] === undefined || claims['azp'] === clientId
}

// OIDC Core 3.1.3.6: the hash of the JWS alg's hash function; EdDSA with Ed25519 uses SHA-512
// (OIDC Core errata / RFC 8037 practice), Ed448 SHAKE256 is not supported here.
function hashFor(alg: string): 'sha256' | 'sha384' | 'sha512' | null {
  if (/^(RS|PS|ES|HS)256$/.test(alg) || alg === 'ES256K') return 'sha256'
  if (/^(RS|PS|ES|HS)384$/.test(alg)) return 'sha384'
  if (/^(RS|PS|ES|HS)512$/.test(alg) || alg === 'EdDSA' || alg === 'Ed25519') return 'sha512'
  return null
}

/**
 * OIDC Core 3.1.3.8 / 3.2.2.9: at_hash = base64url(left half of hash(access_token)). Absent
 * at_hash passes (it is optional in the code flow); an unknown alg with an at_hash fails.
 */
export function atHashMatches(claims: Readonly<Record<string, unknown>>, idTokenAlg: string, accessToken: string): boolean {
  if (claims['at_hash'] === undefined) return true
  if (typeof claims['at_hash'] !== 'string') return false
  const hash = hashFor(idTokenAlg)
  if (!hash) return false
  const digest = createHash(hash).update(accessToken, 'ascii').digest()
  return digest.subarray(0, digest.length / 2).toString('base64url') === claims['at_hash']
}

/** The `alg` of a compact JWS header (already signature-checked by the caller), or null. */
export function jwsAlg(jws: string): string | null {
  try {
    const { alg } = decodeProtectedHeader(jws)
    return typeof alg === 'string' ? alg : null
  } catch {
    // jose throws on anything that is not a compact JWS/JWE with a JSON-object header
    return null
  }
}
