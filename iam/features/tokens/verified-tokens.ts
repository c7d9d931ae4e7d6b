/**
 * Access tokens whose signature verified, by their exact text, for one IAM instance (held in its
 * context: token-service.ts). A browser sends the same access token on every request of its life,
 * and a signature is a pure function of the text and the key, so a hit stands for the signature
 * check only: the caller still requires the entry's key to be the ring's key for its kid, and
 * checks every claim (exp above all) against the clock each time (access-token.ts). The session
 * row is read on every request regardless, so a revoked session fails at once.
 *
 * Only tokens whose signature one of our keys verified get in, at most `maxEntries` (a token and
 * its claims are about 1 KB), the oldest evicted first.
 */
import type { CryptoKey } from 'jose'

/** What a verified signature established: the key that verified it and the claims it covers. */
export interface SignedToken {
  kid: string
  key: CryptoKey
  /** frozen: every request that presents the token shares it (req.user.payload) */
  payload: Readonly<Record<string, unknown>>
}

export interface VerifiedTokens {
  get(token: string): SignedToken | undefined
  remember(token: string, signed: SignedToken): void
  readonly size: number
}

export const VERIFIED_TOKENS_MAX = 5000

/** A bounded map, oldest entry out first (a Map iterates in insertion order). */
export function createVerifiedTokens(maxEntries = VERIFIED_TOKENS_MAX): VerifiedTokens {
  const entries = new Map<string, SignedToken>()
  return {
    get: (token) => entries.get(token),
    remember(token, signed) {
      if (maxEntries <= 0) return
      if (entries.size >= maxEntries) entries.delete(entries.keys().next().value!)
      const { payload } = signed
      if (Array.isArray(payload.roles)) Object.freeze(payload.roles)
      entries.set(token, { ...signed, payload: Object.freeze(payload) })
    },
    get size() {
      return entries.size
    },
  }
}
