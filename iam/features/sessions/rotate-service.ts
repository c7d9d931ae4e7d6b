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
import { getKeyRing } from '../tokens/token-service'
import { completePair, revokeFamily, type TokenPair } from './session-service'
import { findTokenStatus, rotateInOneStatement } from './sessions-repo'

/** Why a rotation fails: a replayed token, a dead one, or another rotation of the family holding the lock. */
export type RotateFailureCode = 'reused' | 'invalid' | 'busy'
export type RotateResult = { ok: true; pair: TokenPair } | { ok: false; code: RotateFailureCode }

type GraceEntry = { canary: string; sealed: string }

// Short: a lock left behind by a winner that lost the store mid-rotation (an outage) must not
// hold the session's next refresh for long. Expiring early is safe: the conditional UPDATE alone
// picks one winner, and the grace entry is written before that winner's commit.
const LOCK_MS = 2_000
const WAIT_MS = 5_000
const POLL_MS = 20

const graceKey = (hash: string) => `session:grace:${hash}`
const lockKey = (hash: string) => `session:rotating:${hash}`

async function readGrace(ctx: IamContext, raw: string, hash: string, canaryId: string): Promise<TokenPair | 'other-device' | null> {
  const entry = await ctx.store.get<GraceEntry>(graceKey(hash))
  if (!entry) return null
  // Published by a rotation that has not committed (yet, or ever: its commit failed in an outage):
  // the old token is still the live one and the pair's refresh token may never exist.
  if ((await findTokenStatus(ctx.db, hash)) === 'active') return null
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

/**
 * The winner's work, in one transaction of three statements (BEGIN, the rotation, COMMIT): rotate,
 * sign, publish the pair for the grace window. The pair is published before the commit, so a store
 * that fails rolls the rotation back (the client keeps a working token and may retry) instead of
 * leaving a rotated token whose successor nobody received. A pair whose commit failed stays in the
 * store but is never handed out (readGrace).
 */
async function rotateOnce(ctx: IamContext, raw: string, hash: string, canaryId: string): Promise<TokenPair | 'not-active' | 'invalid'> {
  const now = ctx.now()
  const cfg = ctx.config.jwt.refresh_tokens
  // read before the transaction: a key ring (re)load must not wait for the connection it holds
  const ring = await getKeyRing(ctx)
  const refreshToken = newRefreshToken()
  return ctx.db.transaction().execute(async (trx) => {
    const rotated = await rotateInOneStatement(trx, {
      hash,
      newHash: hashRefreshToken(refreshToken),
      now: new Date(now),
      refreshTtlMs: cfg.refresh_ttl,
      rememberTtlMs: cfg.rememberMe_ttl,
      maxSessionLifeMs: cfg.MAX_SESSION_LIFE,
    })
    if (!rotated) return 'not-active' as const
    if (rotated.replacedBy === null) return 'invalid' as const
    const session = { familyId: rotated.familyId, refreshToken, refreshExpiresAt: new Date(rotated.newExpiresAt).getTime() }
    const pair = await completePair(ctx, session, { userId: rotated.userId, roles: rotated.roles, visitor: rotated.visitor }, ring)
    if (cfg.reuseGraceMs > 0) {
      await ctx.store.set(graceKey(hash), { canary: canaryId, sealed: sealForToken(raw, pair) } satisfies GraceEntry, cfg.reuseGraceMs)
    }
    return pair
  })
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
      // best effort: a rotation that committed is answered even if the store just went away (the
      // lock then expires on its own after LOCK_MS)
      await ctx.store.delete(lockKey(hash)).catch(() => {})
    }
    // not active any more: someone rotated it in the meantime; its pair may be in the window
    const late = await readGrace(ctx, input.raw, hash, input.canaryId)
    if (late === 'other-device' || !late) return reuse()
    return { ok: true, pair: late }
  }
  return { ok: false, code: 'busy' }
}
