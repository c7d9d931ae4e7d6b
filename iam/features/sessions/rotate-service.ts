/**
 * Refresh-token rotation with a grace window for duplicate refreshes (DESIGN 4, RFC 9700 §4.14.2).
 *
 * Browsers fire the same refresh several times. The first request takes a short lock in the shared
 * store, rotates in one transaction (a conditional UPDATE ... WHERE status = 'active' RETURNING:
 * exactly one winner even without the lock) and leaves the new pair, sealed under the old token,
 * in the store for `reuseGraceMs`. The same old token from the same device within that window gets
 * that same pair; from another device, or later, it is reuse and the family dies.
 */
import type { IamContext } from '../../context'
import { hashRefreshToken, newRefreshToken, openForToken, sealForToken } from './refresh-token'
import { completePair, familyClaims, refreshExpiry, revokeFamily, type TokenPair } from './session-service'
import { insertRefreshToken, linkReplacement, markRotated } from './sessions-repo'

/** Why a rotation fails: a replayed token, a dead one, or another rotation of the family holding the lock. */
export type RotateFailureCode = 'reused' | 'invalid' | 'busy'
export type RotateResult = { ok: true; pair: TokenPair } | { ok: false; code: RotateFailureCode }

type GraceEntry = { canary: string; sealed: string }

const LOCK_MS = 10_000
const WAIT_MS = 5_000
const POLL_MS = 20

const graceKey = (hash: string) => `session:grace:${hash}`
const lockKey = (hash: string) => `session:rotating:${hash}`

async function readGrace(ctx: IamContext, raw: string, hash: string, canaryId: string): Promise<TokenPair | 'other-device' | null> {
  const entry = await ctx.store.get<GraceEntry>(graceKey(hash))
  if (!entry) return null
  if (entry.canary !== canaryId) return 'other-device'
  return openForToken<TokenPair>(raw, entry.sealed)
}

async function waitForGrace(ctx: IamContext, raw: string, hash: string, canaryId: string) {
  const deadline = ctx.now() + WAIT_MS
  while (ctx.now() < deadline) {
    const found = await readGrace(ctx, raw, hash, canaryId)
    if (found) return found
    // the winner is gone (failed): let the caller try again
    if (!(await ctx.store.get(lockKey(hash)))) return null
    await new Promise((resolve) => setTimeout(resolve, POLL_MS))
  }
  return null
}

/** The winner's work: rotate in one transaction, sign, publish the pair for the grace window. */
async function rotateOnce(ctx: IamContext, raw: string, hash: string, canaryId: string): Promise<TokenPair | 'not-active' | 'invalid'> {
  const now = ctx.now()
  const cfg = ctx.config.jwt.refresh_tokens
  const session = await ctx.db.transaction().execute(async (trx) => {
    const old = await markRotated(trx, hash, new Date(now))
    if (!old) return 'not-active' as const
    const family = await familyClaims(trx, old.family_id)
    if (!family || family.revokedAt || family.createdAt.getTime() + cfg.MAX_SESSION_LIFE <= now || old.expires_at.getTime() <= now) {
      return 'invalid' as const
    }
    const refreshToken = newRefreshToken()
    const refreshExpiresAt = refreshExpiry(cfg, family.remember, family.createdAt.getTime(), now)
    const newId = await insertRefreshToken(trx, { familyId: old.family_id, hash: hashRefreshToken(refreshToken), expiresAt: new Date(refreshExpiresAt), now: new Date(now) })
    await linkReplacement(trx, old.id, newId)
    return { session: { familyId: old.family_id, refreshToken, refreshExpiresAt }, claims: family }
  })
  if (typeof session === 'string') return session
  const pair = await completePair(ctx, session.session, { userId: session.claims.userId, roles: session.claims.roles, visitor: session.claims.visitor })
  if (cfg.reuseGraceMs > 0) {
    await ctx.store.set(graceKey(hash), { canary: canaryId, sealed: sealForToken(raw, pair) } satisfies GraceEntry, cfg.reuseGraceMs)
  }
  return pair
}

/**
 * Rotates `raw` for the device `canaryId`. The caller has already run the anomaly checks (check 1
 * refused revoked, expired and out-of-grace reused tokens). `familyId` is the token's family, revoked
 * here on reuse.
 */
export async function rotateRefreshToken(ctx: IamContext, input: { raw: string; canaryId: string; familyId: string }): Promise<RotateResult> {
  const hash = hashRefreshToken(input.raw)
  const reuse = async (): Promise<RotateResult> => {
    await revokeFamily(ctx.db, input.familyId, 'refresh_token_reuse', ctx.now())
    ctx.log.warn('refresh token reuse: family revoked', { familyId: input.familyId })
    return { ok: false, code: 'reused' }
  }
  for (let attempt = 0; attempt < 2; attempt++) {
    const existing = await readGrace(ctx, input.raw, hash, input.canaryId)
    if (existing === 'other-device') return reuse()
    if (existing) return { ok: true, pair: existing }
    if (!(await ctx.store.setIfAbsent(lockKey(hash), 1, LOCK_MS))) {
      const waited = await waitForGrace(ctx, input.raw, hash, input.canaryId)
      if (waited === 'other-device') return reuse()
      if (waited) return { ok: true, pair: waited }
      continue
    }
    try {
      const result = await rotateOnce(ctx, input.raw, hash, input.canaryId)
      if (result === 'invalid') return { ok: false, code: 'invalid' }
      if (result !== 'not-active') return { ok: true, pair: result }
    } finally {
      await ctx.store.delete(lockKey(hash))
    }
    // not active any more: someone rotated it in the meantime; its pair may be in the window
    const late = await readGrace(ctx, input.raw, hash, input.canaryId)
    if (late === 'other-device' || !late) return reuse()
    return { ok: true, pair: late }
  }
  return { ok: false, code: 'busy' }
}
