/**
 * The key ring per booted context: loaded once, re-read every minute (another instance may have
 * rotated) and at most every 5 s when a token names a kid we do not know yet. A read-through
 * cache: it never changes an outcome, only how soon a new key is seen.
 */
import type { IamContext } from '../../context'
import { signAccessToken, verifyAccessToken, type AccessClaims, type VerifyResult } from './access-token'
import { loadKeyRing, type KeyRing } from './signing-keys'

const REFRESH_EVERY_MS = 60_000
const UNKNOWN_KID_RELOAD_MS = 5_000

type RingCache = { ring: Promise<KeyRing>; loadedAt: number }
const rings = new WeakMap<IamContext, RingCache>()

function load(ctx: IamContext): RingCache {
  const entry: RingCache = { ring: loadKeyRing(ctx.db, ctx.config, ctx.now()), loadedAt: ctx.now() }
  entry.ring.catch(() => rings.delete(ctx))
  rings.set(ctx, entry)
  return entry
}

/** The current ring, reloaded when older than a minute. */
export function getKeyRing(ctx: IamContext): Promise<KeyRing> {
  const cached = rings.get(ctx)
  if (!cached || ctx.now() - cached.loadedAt > REFRESH_EVERY_MS) return load(ctx).ring
  return cached.ring
}

/** Forces the next getKeyRing to read the keys again (after a rotation in this process). */
export function invalidateKeyRing(ctx: IamContext): void {
  rings.delete(ctx)
}

const settingsOf = (ctx: IamContext) => ctx.config.jwt.access_tokens

/** Issues an access token for a session; `ring` when the caller already holds it (inside a transaction). */
export async function issueAccessToken(ctx: IamContext, claims: AccessClaims, ring?: KeyRing) {
  return signAccessToken(ring ?? (await getKeyRing(ctx)), settingsOf(ctx), claims, ctx.now())
}

/** Verifies an access token; an unknown kid triggers one throttled reload of the ring. */
export async function checkAccessToken(ctx: IamContext, token: string): Promise<VerifyResult> {
  const result = await verifyAccessToken(await getKeyRing(ctx), settingsOf(ctx), token, ctx.now())
  const cached = rings.get(ctx)
  if (result.ok || result.code !== 'unknown_key' || !cached || ctx.now() - cached.loadedAt <= UNKNOWN_KID_RELOAD_MS) return result
  return verifyAccessToken(await load(ctx).ring, settingsOf(ctx), token, ctx.now())
}
