/**
 * The access tokens of one IAM instance, on state its context holds (`ctx.accessTokens`, made by
 * createAccessTokenState at boot): the key ring, loaded once, re-read every minute (another
 * instance may have rotated) and at most every 5 s when a token names a kid we do not know yet;
 * and the tokens whose signature verified (verified-tokens.ts). Both are read-through caches:
 * neither changes an outcome, the ring only how soon a new key is seen.
 */
import type { IamContext } from '../../context'
import { signAccessToken, verifyAccessToken, type AccessClaims, type VerifyResult } from './access-token'
import { loadKeyRing, type KeyRing } from './signing-keys'
import { createVerifiedTokens, type VerifiedTokens } from './verified-tokens'

const REFRESH_EVERY_MS = 60_000
const UNKNOWN_KID_RELOAD_MS = 5_000

type RingCache = { ring: Promise<KeyRing>; loadedAt: number }

/** Per-instance state of the access tokens, owned by the IamContext (iam/context.ts). */
export interface AccessTokenState {
  /** the ring as last loaded, with when */
  ring: RingCache | undefined
  readonly verified: VerifiedTokens
}

export function createAccessTokenState(): AccessTokenState {
  return { ring: undefined, verified: createVerifiedTokens() }
}

function load(ctx: IamContext): RingCache {
  const state = ctx.accessTokens
  const entry: RingCache = { ring: loadKeyRing(ctx.db, ctx.config, ctx.now()), loadedAt: ctx.now() }
  entry.ring.catch(() => {
    if (state.ring === entry) state.ring = undefined
  })
  state.ring = entry
  return entry
}

/** The current ring, reloaded when older than a minute. */
export function getKeyRing(ctx: IamContext): Promise<KeyRing> {
  const cached = ctx.accessTokens.ring
  if (!cached || ctx.now() - cached.loadedAt > REFRESH_EVERY_MS) return load(ctx).ring
  return cached.ring
}

/** Forces the next getKeyRing to read the keys again (after a rotation in this process). */
export function invalidateKeyRing(ctx: IamContext): void {
  ctx.accessTokens.ring = undefined
}

const settingsOf = (ctx: IamContext) => ctx.config.jwt.access_tokens

/** Issues an access token for a session; `ring` when the caller already holds it (inside a transaction). */
export async function issueAccessToken(ctx: IamContext, claims: AccessClaims, ring?: KeyRing) {
  return signAccessToken(ring ?? (await getKeyRing(ctx)), settingsOf(ctx), claims, ctx.now())
}

/** Verifies an access token; an unknown kid triggers one throttled reload of the ring. */
export async function checkAccessToken(ctx: IamContext, token: string): Promise<VerifyResult> {
  const { verified } = ctx.accessTokens
  const result = await verifyAccessToken(await getKeyRing(ctx), settingsOf(ctx), token, ctx.now(), verified)
  const cached = ctx.accessTokens.ring
  if (result.ok || result.code !== 'unknown_key' || !cached || ctx.now() - cached.loadedAt <= UNKNOWN_KID_RELOAD_MS) return result
  return verifyAccessToken(await load(ctx).ring, settingsOf(ctx), token, ctx.now(), verified)
}
